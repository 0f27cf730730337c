/** Shiki at build time: one highlighter for every code panel, in both themes (colours as classes). */
import { createHighlighter, type Highlighter } from 'shiki';
import { codeColours, THEMES } from './code-colours.ts';
import type { Lang } from './source.ts';

const SHIKI_LANG: Record<Lang, string> = { ts: 'typescript', lua: 'lua', rust: 'rust' };

let highlighter: Promise<Highlighter> | undefined;

export async function highlight(code: string, lang: Lang): Promise<string> {
  highlighter ??= createHighlighter({ themes: Object.values(THEMES), langs: Object.values(SHIKI_LANG) });
  return (await highlighter).codeToHtml(code, {
    lang: SHIKI_LANG[lang],
    themes: THEMES,
    defaultColor: false,
    transformers: [codeColours],
  });
}
