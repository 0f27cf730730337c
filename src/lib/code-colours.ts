// Shiki's colours as classes, for every code block of the site (the source panels' highlight.ts and the
// MDX fences, astro.config.mjs): a token's two colours, the light theme's and the dark theme's, become
// two short classes naming each colour's place in its theme's palette (`l3 d7`), and one small sheet
// (CODE_COLOURS_CSS, placed by CodeColours.astro) sets from them the --shiki-light and --shiki-dark
// variables the inline style per token used to set — global.css colours spans from those, as before. A
// token in the code's own colour loses its span (the <pre> gives it that colour), neighbours of one
// colour become one span, and a line is its tokens and a newline, without a span of its own (nothing
// styles or reads Shiki's span.line): fewer elements, the same text, the same colours in both themes.
import { bundledThemes, type ShikiTransformer } from 'shiki';
import type { Element, ElementContent } from 'hast';

export const THEMES = { light: 'github-light-default', dark: 'github-dark-default' } as const;

/** A theme's colours in a fixed order: its foreground first, then every token colour it names. */
async function paletteOf(name: string): Promise<string[]> {
  const theme = (await bundledThemes[name as keyof typeof bundledThemes]()).default as {
    colors?: Record<string, string>;
    tokenColors?: { settings?: { foreground?: string } }[];
  };
  const colours = [
    theme.colors?.['editor.foreground'],
    ...(theme.tokenColors ?? []).map((t) => t.settings?.foreground),
  ];
  return [...new Set(colours.filter((c): c is string => Boolean(c)).map((c) => c.toUpperCase()))];
}

const PALETTES = { light: await paletteOf(THEMES.light), dark: await paletteOf(THEMES.dark) };
const VARIABLE = { light: '--shiki-light', dark: '--shiki-dark' } as const;
const PREFIX = { light: 'l', dark: 'd' } as const;

/** The palette rules: `pre .l3{--shiki-light:#CF222E}` for each colour, and the code's own colours. */
export const CODE_COLOURS_CSS = [
  `.shiki{${VARIABLE.light}:${PALETTES.light[0]};${VARIABLE.dark}:${PALETTES.dark[0]}}`,
  ...(['light', 'dark'] as const).flatMap((mode) =>
    PALETTES[mode].map((colour, i) => `pre .${PREFIX[mode]}${i}{${VARIABLE[mode]}:${colour}}`),
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
  let plain = true;
  for (const [name, value] of declarations(String(span.properties.style ?? ''))) {
    const mode = name === VARIABLE.light ? 'light' : name === VARIABLE.dark ? 'dark' : null;
    const index = mode ? PALETTES[mode].indexOf(value.toUpperCase()) : -1;
    if (mode && index >= 0) {
      classes.push(`${PREFIX[mode]}${index}`);
      if (index !== 0) plain = false;
    } else {
      rest.push(`${name}:${value}`);
      plain = false;
    }
  }
  return { classes, style: rest.join(';'), plain };
}

const isSpan = (node: ElementContent): node is Element => node.type === 'element' && node.tagName === 'span';

/** The transformer both highlighters use. */
export const codeColours: ShikiTransformer = {
  name: 'the-owned-keyspace:code-colours',
  pre(pre) {
    // the code's own colours come from CODE_COLOURS_CSS; its background from global.css (--code-bg)
    delete pre.properties.style;
  },
  line(line) {
    const out: ElementContent[] = [];
    let previous: { span: Element; key: string } | null = null;
    for (const child of line.children) {
      if (!isSpan(child)) {
        out.push(child);
        previous = null;
        continue;
      }
      const { classes, style, plain } = classify(child);
      const text = child.children;
      if (plain) {
        out.push(...text);
        previous = null;
        continue;
      }
      const key = `${classes.join(' ')}|${style}`;
      if (previous && previous.key === key) {
        previous.span.children.push(...text);
        continue;
      }
      const span: Element = {
        type: 'element',
        tagName: 'span',
        properties: { class: classes.join(' '), ...(style ? { style } : {}) },
        children: [...text],
      };
      out.push(span);
      previous = { span, key };
    }
    line.children = out;
  },
  code(code) {
    code.children = code.children.flatMap((child) =>
      child.type === 'element' && child.tagName === 'span' && child.properties.class === 'line'
        ? child.children
        : [child],
    );
  },
};
