// Shiki's colours as classes, for every code block of the site (the source panels' highlight.ts and the
// MDX fences, astro.config.mjs): a token's two colours, the light theme's and the dark theme's, become
// two short classes naming each colour's place in its theme's palette (`l3 d3`), and one small sheet
// (CODE_COLOURS_CSS, placed by CodeColours.astro) sets from them the --shiki-light and --shiki-dark
// variables global.css colours spans from.
//
// Only three kinds of token keep a colour of their own: comments, strings and named constants
// (true/false/null, CONSTANT_NAMES) — each in the colour its theme gives that kind, so the contrast is
// the theme's. Everything else (keywords, numbers, names, types, calls, operators and punctuation, even
// where the theme draws them in a constant's colour) is in the code's own colour: a token is of a kind
// by its scopes (Shiki's explanation), not by its colour alone. Keywords and numbers are the commonest
// coloured tokens and the ones a reader needs least (a keyword is a word every line of the language is
// made of, a number shows itself by its digits), and a span per coloured run is an element per run: a
// page of source panels was most of its elements in spans, and its keywords and numbers were half of
// them (72 of the braced grammar's 157, 49 of the hashtag dive's 78). A token in the
// code's own colour loses its span (the <pre> gives it that colour), neighbours of one colour become one
// span (the spaces between them too: a space shows no colour, nor does a newline, so a comment of many
// lines is one span), and a line is its tokens and a newline, without a span of its own (nothing styles
// or reads Shiki's span.line).
import { bundledThemes, type ShikiTransformer } from 'shiki';
import type { Element, ElementContent, Text } from 'hast';

export const THEMES = { light: 'github-light-default', dark: 'github-dark-default' } as const;

/** The kinds of token that keep their theme's colour; the rest are in the code's own colour. */
const COLOURED_KINDS = ['comment', 'string', 'constant'] as const;
/**
 * The scopes that make a token one of those kinds. The themes draw more in those colours (a type such
 * as `string`, a call such as Lua's `redis.call`, a property such as `length`, `self`): those take the
 * code's own colour.
 */
const KIND_SCOPES = [
  'comment',
  'punctuation.definition.comment',
  'string',
  'constant',
  'variable.other.constant',
  'entity.name.constant',
  'variable.other.enummember',
];
/** Scopes of those kinds in the code's own colour all the same: a number is plain to see. */
const PLAIN_SCOPES = ['constant.numeric'];
const within = (kinds: string[]) => (scope: string) =>
  kinds.some((kind) => scope === kind || scope.startsWith(`${kind}.`));
const ofColouredKind = within(KIND_SCOPES);
const plainAllTheSame = within(PLAIN_SCOPES);
/** Each token span's scopes, from Shiki's explanation (the span hook), read when its line is classified. */
const SCOPES = new WeakMap<Element, string[]>();

interface Theme {
  colors?: Record<string, string>;
  tokenColors?: { scope?: string | string[]; settings?: { foreground?: string } }[];
}

/** A theme's colours in a fixed order: its foreground first, then every token colour it names. */
function paletteOf(theme: Theme): string[] {
  const colours = [
    theme.colors?.['editor.foreground'],
    ...(theme.tokenColors ?? []).map((t) => t.settings?.foreground),
  ];
  return [...new Set(colours.filter((c): c is string => Boolean(c)).map((c) => c.toUpperCase()))];
}

/** The colour a theme gives a kind of token: the foreground of the rule naming that scope itself. */
function colourOfKind(theme: Theme, kind: string): string {
  const rule = (theme.tokenColors ?? []).find((t) => [t.scope ?? []].flat().includes(kind));
  const colour = rule?.settings?.foreground;
  if (!colour) throw new Error(`the theme has no colour for ${kind} tokens`);
  return colour.toUpperCase();
}

const loadTheme = async (name: string) =>
  (await bundledThemes[name as keyof typeof bundledThemes]()).default as Theme;
const THEME = { light: await loadTheme(THEMES.light), dark: await loadTheme(THEMES.dark) };
const PALETTES = { light: paletteOf(THEME.light), dark: paletteOf(THEME.dark) };
const VARIABLE = { light: '--shiki-light', dark: '--shiki-dark' } as const;
const PREFIX = { light: 'l', dark: 'd' } as const;
/** A comment's palette place, per theme: every token inside a comment (a doc tag, say) is in it. */
const COMMENT = {
  light: PALETTES.light.indexOf(colourOfKind(THEME.light, 'comment')),
  dark: PALETTES.dark.indexOf(colourOfKind(THEME.dark, 'comment')),
};
const inComment = within(['comment']);
/** The palette places of the colours kept, per theme. */
const KEPT = {
  light: new Set(COLOURED_KINDS.map((k) => PALETTES.light.indexOf(colourOfKind(THEME.light, k)))),
  dark: new Set(COLOURED_KINDS.map((k) => PALETTES.dark.indexOf(colourOfKind(THEME.dark, k)))),
};

/** The palette rules: `pre .l3{--shiki-light:#0550AE}` for each colour kept, and the code's own colours. */
export const CODE_COLOURS_CSS = [
  `.shiki{${VARIABLE.light}:${PALETTES.light[0]};${VARIABLE.dark}:${PALETTES.dark[0]}}`,
  ...(['light', 'dark'] as const).flatMap((mode) =>
    [...KEPT[mode]].map(
      (index) => `pre .${PREFIX[mode]}${index}{${VARIABLE[mode]}:${PALETTES[mode][index]}}`,
    ),
  ),
].join('');

/** A style attribute as its declarations, in order. */
function declarations(style: string): [string, string][] {
  return style
    .split(';')
    .map((d) => d.trim())
    .filter(Boolean)
    .map((d) => {
      const at = d.indexOf(':');
      return [d.slice(0, at).trim(), d.slice(at + 1).trim()];
    });
}

/**
 * One token's span with its colours as classes: the classes, what is left of its style (a font style,
 * say, or a colour no palette holds), and whether it is in the code's own colour in both themes.
 */
function classify(span: Element): { classes: string[]; style: string; plain: boolean } {
  const classes: string[] = [];
  const rest: string[] = [];
  let kept = 0;
  const scopes = SCOPES.get(span);
  // a comment is one colour, whatever the theme draws a word inside it in (`@include` as a keyword)
  if (scopes?.some(inComment))
    return {
      classes: [`${PREFIX.light}${COMMENT.light}`, `${PREFIX.dark}${COMMENT.dark}`],
      style: '',
      plain: false,
    };
  const ofKind = scopes === undefined || (scopes.some(ofColouredKind) && !scopes.some(plainAllTheSame));
  for (const [name, value] of declarations(String(span.properties.style ?? ''))) {
    const mode = name === VARIABLE.light ? 'light' : name === VARIABLE.dark ? 'dark' : null;
    const index = mode ? PALETTES[mode].indexOf(value.toUpperCase()) : -1;
    if (mode && index >= 0) {
      if (ofKind && KEPT[mode].has(index)) {
        classes.push(`${PREFIX[mode]}${index}`);
        kept += 1;
      }
    } else if (!mode) {
      rest.push(`${name}:${value}`);
    }
  }
  // a token keeps its colours only in both themes at once: one theme's colour alone would pair it
  // with the other theme's foreground
  if (kept < 2) classes.length = 0;
  return { classes, style: rest.join(';'), plain: classes.length === 0 && rest.length === 0 };
}

const isSpan = (node: ElementContent): node is Element => node.type === 'element' && node.tagName === 'span';
const isBlank = (node: ElementContent): node is Text => node.type === 'text' && node.value.trim() === '';

/** The transformer both highlighters use. */
export const codeColours: ShikiTransformer = {
  name: 'the-owned-keyspace:code-colours',
  preprocess(_code, options) {
    // Shiki stops colouring a line after 500 ms by default: the grammar's first use compiles its
    // patterns, and on a busy build machine that left whole lines of a panel uncoloured. The build has
    // the time.
    options.tokenizeTimeLimit = 0;
    // each token's scopes, which say its kind
    options.includeExplanation = 'scopeName';
  },
  span(span, _line, _col, _lineElement, token) {
    SCOPES.set(
      span,
      (token.explanation ?? []).flatMap((part) => part.scopes.map((scope) => scope.scopeName)),
    );
  },
  pre(pre) {
    // the code's own colours come from CODE_COLOURS_CSS; its background from global.css (--code-bg)
    delete pre.properties.style;
  },
  line(line) {
    // each token in its colours as classes, or its bare text in the code's own colour; the code hook
    // then joins neighbours of one colour, on a line and across lines
    line.children = line.children.flatMap((child): ElementContent[] => {
      if (!isSpan(child)) return [child];
      const { classes, style, plain } = classify(child);
      if (plain) return child.children;
      const properties = {
        ...(classes.length ? { class: classes.join(' ') } : {}),
        ...(style ? { style } : {}),
      };
      return [{ type: 'element', tagName: 'span', properties, children: child.children }];
    });
  },
  code(code) {
    const flat = code.children.flatMap((child) =>
      child.type === 'element' && child.tagName === 'span' && child.properties.class === 'line'
        ? child.children
        : [child],
    );
    code.children = joinAcrossLines(flat);
  },
};

/**
 * Spans of one colour with only spaces and newlines between them become one span, on a line (a space
 * shows no colour) and across lines: a comment of many lines, say, is one element, not one a line (a
 * newline shows no colour either).
 */
function joinAcrossLines(nodes: ElementContent[]): ElementContent[] {
  const out: ElementContent[] = [];
  let previous: Element | null = null;
  let blanks: Text[] = [];
  const keyOf = (span: Element) =>
    `${String(span.properties.class ?? '')}|${String(span.properties.style ?? '')}`;
  for (const node of nodes) {
    if (previous && isBlank(node)) {
      blanks.push(node);
      continue;
    }
    if (previous && isSpan(node) && keyOf(node) === keyOf(previous)) {
      previous.children.push(...blanks, ...node.children);
      blanks = [];
      continue;
    }
    out.push(...blanks, node);
    blanks = [];
    previous = isSpan(node) ? node : null;
  }
  out.push(...blanks);
  return out;
}
