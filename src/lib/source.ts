/**
 * Source extraction for the course's code panels.
 *
 * A panel names a file of this project and, optionally, a symbol in it; this module returns the exact
 * lines of the file that hold the symbol — leading doc comments included. Nothing is reformatted: the
 * panel shows the file. A panel naming a file or a symbol that is not there throws, so the build fails.
 *
 * - TypeScript: a top-level declaration (`function`, `const`/`let`/`var`, `class`, `interface`, `type`,
 *   `enum`) as the TypeScript compiler parses it: the node's own start and end, not a guess from brackets.
 * - Rust: the lines between the anchors `// panel: <symbol>` and `// end of panel: <symbol>` in the
 *   file (the native module marks what the course shows; the build fails if a mark goes missing).
 * - Lua: the whole file (no symbol).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';

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

/** Reads `symbol` from `file` under `root`; throws, naming what is missing, when either is not there. */
export function readSymbol(root: string, file: string, symbol: string | null = null): SourceSpan {
  const path = resolve(root, file);
  if (!existsSync(path)) throw new Error(`a code panel names ${file}, which does not exist`);
  const lang = langOf(file);
  const span = locate(readFileSync(path, 'utf8'), lang, symbol);
  if (!span) {
    const how =
      lang === 'rust'
        ? ` (a Rust panel needs the anchors '// panel: ${symbol}' and '// end of panel: ${symbol}')`
        : '';
    throw new Error(`a code panel names ${symbol} in ${file}, which declares no such symbol${how}`);
  }
  return { file, symbol, lang, ...span };
}

/** Finds the line span of `symbol` in `text`; a null symbol is the whole text. Null when it is not there. */
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
  const found =
    lang === 'rust' ? anchoredRust(lines, symbol) : lang === 'ts' ? declaredTs(text, symbol) : null;
  if (!found) return null;
  return { text: lines.slice(found.startLine - 1, found.endLine).join('\n'), ...found };
}

interface Lines {
  startLine: number;
  endLine: number;
}

/** The statement's name, when it is a declaration a panel can name. */
function declaredNames(statement: ts.Statement): string[] {
  if (ts.isVariableStatement(statement))
    return statement.declarationList.declarations.flatMap((d) =>
      ts.isIdentifier(d.name) ? [d.name.text] : [],
    );
  if (
    ts.isFunctionDeclaration(statement) ||
    ts.isClassDeclaration(statement) ||
    ts.isInterfaceDeclaration(statement) ||
    ts.isTypeAliasDeclaration(statement) ||
    ts.isEnumDeclaration(statement)
  )
    return statement.name ? [statement.name.text] : [];
  return [];
}

const exported = (statement: ts.Statement): boolean =>
  ts.canHaveModifiers(statement) &&
  (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/**
 * A top-level declaration of `name` as the compiler parses it: an exported one wins over a local one of
 * the same name; a function's overloads run on to its implementation. Its doc comment comes with it.
 */
function declaredTs(text: string, name: string): Lines | null {
  const source = ts.createSourceFile('panel.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const matches = source.statements.filter((statement) => declaredNames(statement).includes(name));
  const chosen = matches.filter(exported).length > 0 ? matches.filter(exported) : matches;
  const first = chosen[0];
  if (!first) return null;
  let last = first;
  for (const next of chosen.slice(1)) {
    const overload = ts.isFunctionDeclaration(last) && !last.body && ts.isFunctionDeclaration(next);
    if (!overload) break;
    last = next;
  }
  const lineOf = (offset: number) => source.getLineAndCharacterOfPosition(offset).line + 1;
  // The comments directly above the declaration (no blank line between) are its notes.
  const comments = ts.getLeadingCommentRanges(text, first.getFullStart()) ?? [];
  let start = first.getStart(source);
  for (const comment of comments.toReversed()) {
    const between = text.slice(comment.end, start);
    if ((between.match(/\n/g) ?? []).length > 1) break;
    start = comment.pos;
  }
  return { startLine: lineOf(start), endLine: lineOf(last.getEnd() - 1) };
}

/** The lines between `// panel: <symbol>` and `// end of panel: <symbol>`, the marks themselves left out. */
function anchoredRust(lines: string[], symbol: string): Lines | null {
  const open = lines.findIndex((line) => new RegExp(`^\\s*// panel: ${escape(symbol)}(\\s|$)`).test(line));
  if (open < 0) return null;
  const close = lines.findIndex((line, i) => i > open && line.trim() === `// end of panel: ${symbol}`);
  if (close < 0) return null;
  return { startLine: open + 2, endLine: close };
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
