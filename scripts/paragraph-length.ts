// The course's paragraphs stay short enough for a newcomer to read in one go: every paragraph and list
// item of the MDX text in content/ is at most PARAGRAPH_WORDS words. Run: node scripts/paragraph-length.ts
// (prints each longer one and exits 1); tests/unit/paragraph-length.test.ts runs the same check.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const PARAGRAPH_WORDS = 80;

export interface LongParagraph {
  file: string;
  /** 1-based line of the paragraph's first line */
  line: number;
  words: number;
  start: string;
}

/** Words as a reader counts them: a link is its text, a code span one word, an HTML tag none. */
export function countWords(text: string): number {
  const plain = text
    .replace(/`[^`]*`/g, (code) => code.replace(/\s+/g, '_').replace(/[<>]/g, '_'))
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/[*_]/g, '');
  return plain.split(/\s+/).filter((w) => /[\p{L}\p{N}`{}<>@]/u.test(w)).length;
}

/** The prose blocks of one MDX text: paragraphs and list items, without front matter, imports, code
 * fences, tables, headings and component tags. Each with its first line. */
export function proseBlocks(mdx: string): { line: number; text: string }[] {
  const lines = mdx.split('\n');
  const blocks: { line: number; text: string }[] = [];
  let current: { line: number; text: string } | null = null;
  const close = () => {
    if (current) blocks.push(current);
    current = null;
  };
  let i = 0;
  if (lines[0] === '---') {
    i = lines.indexOf('---', 1) + 1;
  }
  let fence = false;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (/^(```|~~~)/.test(trimmed)) {
      close();
      fence = !fence;
      continue;
    }
    if (fence) continue;
    const isTag = /^<\/?[A-Za-z][^>]*>?$/.test(trimmed) && !/^<(a|code|dfn|em|strong)\b/.test(trimmed);
    if (trimmed === '' || /^import\s/.test(trimmed) || /^#{1,6}\s/.test(trimmed) || /^\|/.test(trimmed)) {
      close();
      continue;
    }
    if (isTag || /^<[A-Z]/.test(trimmed) || /^\/?>$/.test(trimmed) || /^[a-z]+=/.test(trimmed)) {
      close();
      continue;
    }
    const item = /^\s*([-*]|\d+\.)\s+/.exec(line);
    if (item) {
      close();
      current = { line: i + 1, text: line.slice(item[0].length) };
      continue;
    }
    if (current) current.text += ' ' + trimmed;
    else current = { line: i + 1, text: trimmed };
  }
  close();
  return blocks;
}

export function longParagraphs(file: string, mdx: string, limit = PARAGRAPH_WORDS): LongParagraph[] {
  return proseBlocks(mdx)
    .map((b) => ({ file, line: b.line, words: countWords(b.text), start: b.text.slice(0, 60) }))
    .filter((b) => b.words > limit);
}

export function courseTexts(root: string): { file: string; text: string }[] {
  const dir = join(root, 'content');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.mdx') || f.endsWith('.md'))
    .sort()
    .map((f) => ({ file: relative(root, join(dir, f)), text: readFileSync(join(dir, f), 'utf8') }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = new URL('..', import.meta.url).pathname;
  const long = courseTexts(root).flatMap((t) => longParagraphs(t.file, t.text));
  for (const p of long) console.log(`${p.file}:${p.line}: ${p.words} words: ${p.start}…`);
  if (long.length) {
    console.log(`${long.length} paragraph(s) over ${PARAGRAPH_WORDS} words: split them`);
    process.exit(1);
  }
  console.log(`every paragraph in content/ is at most ${PARAGRAPH_WORDS} words`);
}
