/**
 * Source extraction for the course's code panels.
 *
 * A panel names a file of this project and, optionally, a symbol in it; this module finds the symbol's
 * declaration and its whole body by bracket matching, and returns the exact lines of the file that hold
 * it — leading doc comments and attributes included. Nothing is reformatted: the panel shows the file.
 *
 * - TypeScript: `export function name`, `export const name`, `export type|interface|class|enum name`.
 * - Rust: `fn name`, `impl Name`, `struct|enum|trait|const|static Name`, and `Type::method` (the `fn`
 *   inside an `impl Type` block).
 * - Lua: the whole file (no symbol).
 *
 * Plain TypeScript with erasable syntax only: the tests import it directly under Node's type stripping.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export type Lang = 'ts' | 'lua' | 'rust';

export interface SourceSpan {
  /** the file, relative to the project root */
  file: string;
  /** the symbol as the panel names it; null for a whole file */
  symbol: string | null;
  lang: Lang;
  /** the exact text of lines startLine..endLine of the file, joined by "\n" */
  text: string;
  /** 1-based, inclusive */
  startLine: number;
  endLine: number;
}

export function langOf(file: string): Lang {
  if (file.endsWith('.lua')) return 'lua';
  if (file.endsWith('.rs')) return 'rust';
  if (/\.(c|m)?tsx?$/.test(file)) return 'ts';
  throw new Error(`no source language for '${file}'`);
}

/**
 * Reads `symbol` from `file` under `root`. Returns null when the file does not exist yet or does not
 * declare the symbol — the panel then says so, and the build still succeeds.
 */
export function readSymbol(root: string, file: string, symbol: string | null = null): SourceSpan | null {
  const path = resolve(root, file);
  if (!existsSync(path)) return null;
  const text = readFileSync(path, 'utf8');
  const lang = langOf(file);
  const span = locate(text, lang, symbol);
  if (!span) return null;
  return { file, symbol, lang, ...span };
}

/** Finds the line span of `symbol` in `text`; a null symbol is the whole text. */
export function locate(
  text: string,
  lang: Lang,
  symbol: string | null,
): { text: string; startLine: number; endLine: number } | null {
  const lines = text.split('\n');
  if (symbol === null) {
    let last = lines.length;
    while (last > 0 && lines[last - 1]!.trim() === '') last--;
    if (last === 0) return null;
    return { text: lines.slice(0, last).join('\n'), startLine: 1, endLine: last };
  }
  const found = lang === 'rust' ? findRust(text, symbol) : lang === 'ts' ? findTs(text, symbol) : null;
  if (!found) return null;
  const startLine = includeLeadingNotes(lines, lineOf(text, found.start), lang);
  const endLine = lineOf(text, found.end - 1);
  return { text: lines.slice(startLine - 1, endLine).join('\n'), startLine, endLine };
}

// ---------------------------------------------------------------- symbol location

interface Found {
  start: number;
  end: number;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function findTs(text: string, name: string): Found | null {
  const id = escape(name);
  const re = new RegExp(
    String.raw`^[ \t]*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?` +
      String.raw`(function\*?|const|let|var|class|abstract\s+class|interface|type|enum)\s+${id}(?![\w$])`,
    'gm',
  );
  const matches = [...text.matchAll(re)];
  // an exported declaration wins over a local one of the same name
  const m = matches.find((x) => /^\s*export\b/.test(x[0])) ?? matches[0];
  if (!m || m.index === undefined) return null;
  const start = m.index + (m[0].length - m[0].trimStart().length);
  const kind = m[1]!;
  const mode = /^(const|let|var|type)$/.test(kind) ? 'statement' : 'block';
  return { start, end: scanEnd(text, start, 'ts', mode) };
}

function findRust(text: string, symbol: string): Found | null {
  const qualified = /^([A-Za-z_]\w*)::([A-Za-z_]\w*)$/.exec(symbol);
  if (qualified) {
    const [, type, method] = qualified;
    const implRe = new RegExp(
      String.raw`^[ \t]*impl(?:<[^>{]*>)?\s+(?:[\w:<>, ']+\s+for\s+)?${escape(type!)}(?:<[^>{]*>)?\s*(?:where[^{]*)?\{`,
      'gm',
    );
    for (const impl of text.matchAll(implRe)) {
      const from = impl.index! + (impl[0].length - impl[0].trimStart().length);
      const end = scanEnd(text, from, 'rust', 'block');
      const body = text.slice(0, end);
      const fnRe = fnPattern(method!);
      fnRe.lastIndex = impl.index! + impl[0].length;
      const fn = fnRe.exec(body);
      if (fn) {
        const start = fn.index + (fn[0].length - fn[0].trimStart().length);
        return { start, end: scanEnd(text, start, 'rust', 'block') };
      }
    }
    return null;
  }
  const explicit = /^(impl|struct|enum|trait|const|static|type|mod|fn)\s+([A-Za-z_]\w*)$/.exec(symbol);
  const kinds = explicit
    ? [explicit[1]!]
    : /^[A-Z]/.test(symbol)
      ? ['struct', 'enum', 'impl', 'trait', 'const', 'static', 'type']
      : ['fn', 'mod'];
  const name = explicit ? explicit[2]! : symbol;
  for (const kind of kinds) {
    const re =
      kind === 'fn'
        ? fnPattern(name)
        : kind === 'impl'
          ? new RegExp(String.raw`^[ \t]*impl(?:<[^>{]*>)?\s+${escape(name)}(?![\w])`, 'gm')
          : new RegExp(String.raw`^[ \t]*(?:pub(?:\([^)]*\))?\s+)?${kind}\s+${escape(name)}(?![\w])`, 'gm');
    const m = re.exec(text);
    if (m) {
      const start = m.index + (m[0].length - m[0].trimStart().length);
      return { start, end: scanEnd(text, start, 'rust', 'block') };
    }
  }
  return null;
}

function fnPattern(name: string): RegExp {
  return new RegExp(
    String.raw`^[ \t]*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+${escape(name)}(?![\w])`,
    'gm',
  );
}

/** Doc comments, attributes and decorators directly above a declaration belong to it. */
function includeLeadingNotes(lines: string[], declLine: number, lang: Lang): number {
  let first = declLine;
  while (first > 1) {
    const prev = lines[first - 2]!.trim();
    const note =
      prev.startsWith('//') ||
      prev.startsWith('/*') ||
      prev.startsWith('*') ||
      (lang === 'rust' && prev.startsWith('#[')) ||
      (lang === 'ts' && prev.startsWith('@'));
    if (!note || prev === '') break;
    first--;
  }
  return first;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

// ---------------------------------------------------------------- bracket matching

type Mode = 'block' | 'statement';

/**
 * From the start of a declaration, returns the offset just past its end.
 * block: the `}` that closes its first top-level `{` (unless a `{` follows on the same line, as after a
 * braced return type), or a top-level `;` before any block. statement: a top-level `;`, or the end of a
 * line at depth 0 that does not continue onto the next one.
 */
export function scanEnd(text: string, start: number, lang: Lang, mode: Mode): number {
  let depth = 0;
  let prev = ''; // the last significant character outside comments and strings
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    const n = text[i + 1];
    if (c === '/' && n === '/') {
      i = endOfLine(text, i);
      continue;
    }
    if (c === '/' && n === '*') {
      const close = text.indexOf('*/', i + 2);
      i = close < 0 ? text.length : close + 2;
      continue;
    }
    if (c === '"' || (lang === 'ts' && (c === "'" || c === '`'))) {
      i = skipQuoted(text, i, c, lang);
      prev = c;
      continue;
    }
    if (lang === 'rust' && c === "'") {
      if (n === '\\') i = text.indexOf("'", i + 3) + 1;
      else if (text[i + 2] === "'") i += 3;
      else i += 1; // a lifetime
      prev = "'";
      continue;
    }
    if (
      lang === 'rust' &&
      c === 'r' &&
      (n === '"' || (n === '#' && /#*"/.test(text.slice(i + 1, i + 8)))) &&
      !/\w/.test(text[i - 1] ?? '')
    ) {
      const hashes = /^#*/.exec(text.slice(i + 1))![0];
      const close = text.indexOf('"' + hashes, i + 2 + hashes.length);
      i = close < 0 ? text.length : close + 1 + hashes.length;
      prev = '"';
      continue;
    }
    if (lang === 'ts' && c === '/' && (prev === '' || '(,=:[!&|?{};'.includes(prev))) {
      i = skipRegex(text, i);
      prev = '/';
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0 && c === '}' && mode === 'block') {
        const rest = /^[ \t]*(\S?)/.exec(text.slice(i + 1))![1];
        if (rest !== '{' && rest !== '|' && rest !== '&') return i + 1;
      }
    } else if (c === ';' && depth === 0) return i + 1;
    else if (c === '\n' && depth === 0 && mode === 'statement' && prev !== '') {
      const next = /^\s*(\S)/.exec(text.slice(i + 1))?.[1] ?? '';
      if (!'=,(+-*/?:|&.>'.includes(prev) && !'.?:|&+)]}'.includes(next)) return i;
    }
    if (!/\s/.test(c)) prev = c;
    i++;
  }
  return text.length;
}

function endOfLine(text: string, i: number): number {
  const nl = text.indexOf('\n', i);
  return nl < 0 ? text.length : nl;
}

function skipQuoted(text: string, i: number, quote: string, lang: Lang): number {
  let j = i + 1;
  while (j < text.length) {
    const c = text[j]!;
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (c === quote) return j + 1;
    if (quote === '`' && c === '$' && text[j + 1] === '{') {
      // a template expression: match its braces, skipping nested strings
      let depth = 1;
      j += 2;
      while (j < text.length && depth > 0) {
        const d = text[j]!;
        if (d === '"' || d === "'" || d === '`') {
          j = skipQuoted(text, j, d, lang);
          continue;
        }
        if (d === '{') depth++;
        else if (d === '}') depth--;
        j++;
      }
      continue;
    }
    if (quote !== '`' && c === '\n' && lang === 'ts') return j; // unterminated: stop at the line end
    j++;
  }
  return text.length;
}

function skipRegex(text: string, i: number): number {
  let j = i + 1;
  let inClass = false;
  while (j < text.length) {
    const c = text[j]!;
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (c === '\n') return j;
    if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') inClass = true;
    else if (c === '/') {
      j++;
      while (/[a-z]/.test(text[j] ?? '')) j++;
      return j;
    }
    j++;
  }
  return text.length;
}
