// A newcomer reads the course in short paragraphs: no paragraph or list item in content/ is over 80 words.
// The counter itself is held at the limit and one past, and to what it must skip (code, tables, tags).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  countWords,
  courseTexts,
  longParagraphs,
  PARAGRAPH_WORDS,
  proseBlocks,
} from '../../scripts/paragraph-length.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

describe('the paragraph length check', () => {
  it('passes a paragraph of exactly the limit and refuses one word more', () => {
    assert.equal(PARAGRAPH_WORDS, 80);
    assert.deepEqual(longParagraphs('x.mdx', words(80)), []);
    const long = longParagraphs('x.mdx', `intro\n\n${words(81)}\n`);
    assert.equal(long.length, 1);
    assert.equal(long[0]!.words, 81);
    assert.equal(long[0]!.line, 3);
  });

  it('counts a paragraph over several lines as one, and each list item on its own', () => {
    const half = words(41);
    assert.equal(longParagraphs('x.mdx', `${half}\n${half}\n`).length, 1, 'two lines, one paragraph');
    assert.deepEqual(longParagraphs('x.mdx', `- ${half}\n  ${words(39)}\n- ${half}\n`), []);
    assert.equal(longParagraphs('x.mdx', `1. ${half}\n   ${half}\n`).length, 1, 'a numbered item');
  });

  it('counts a link as its text and skips front matter, imports, code, tables, headings and components', () => {
    assert.equal(countWords('[the reserve](/protocol/the-owned-keyspace/reserve/) holds it'), 4);
    assert.equal(
      countWords('`emq:{q}:<type>` — one shape, `EVALSHA <sha> <numkeys>` and <dfn id="x">slot</dfn>'),
      6,
    );
    const mdx = [
      '---',
      `title: ${words(90)}`,
      '---',
      "import X from './x.astro';",
      '',
      '```text',
      words(90),
      '```',
      '',
      `| ${words(90)} |`,
      `## ${words(90)}`,
      `<SourcePanel file="a.ts" caption="${words(90)}" />`,
      '',
      'one short paragraph',
    ].join('\n');
    assert.deepEqual(
      proseBlocks(mdx).map((b) => b.text),
      ['one short paragraph'],
    );
  });

  it(`finds no paragraph over ${PARAGRAPH_WORDS} words in the course`, () => {
    const texts = courseTexts(ROOT);
    assert.ok(texts.length >= 5, 'read the course pages');
    const long = texts.flatMap((t) => longParagraphs(t.file, t.text));
    assert.deepEqual(
      long.map((p) => `${p.file}:${p.line} (${p.words} words) ${p.start}…`),
      [],
    );
  });
});
