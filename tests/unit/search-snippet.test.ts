// A search result's snippet shows whole words: it starts and ends at a word's edge, with … where text
// was left out, however the 140 characters fall.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snippet } from '../../src/components/chrome/search-snippet.ts';

const TEXT =
  'While a slot migrates, a call naming several of its keys, some missing, is refused with TRYAGAIN by the source and by the target after ASKING, so the claim waits out the whole migration, retrying, until the slot has one owner again.';

/** The snippet's words without its ellipses. */
const body = (s: string) => s.replace(/^… /, '').replace(/ …$/, '');

test('every cut falls between words, wherever the match is', () => {
  for (const word of ['while', 'tryagain', 'asking', 'retrying', 'again']) {
    for (const width of [20, 33, 57, 140]) {
      const s = snippet(TEXT, word, width);
      const words = body(s);
      const at = TEXT.indexOf(words);
      assert.ok(at >= 0, `${word}/${width}: ${s}`);
      assert.ok(at === 0 || TEXT[at - 1] === ' ', `starts on a word: ${s}`);
      const end = at + words.length;
      assert.ok(end === TEXT.length || TEXT[end] === ' ', `ends on a word: ${s}`);
      assert.equal(s.startsWith('… '), at > 0, s);
      assert.equal(s.endsWith(' …'), end < TEXT.length, s);
      assert.ok(words.toLowerCase().includes(word), `shows the match: ${s}`);
    }
  }
});

test('a short text is shown whole, and a word found only in the heading shows the start', () => {
  assert.equal(snippet('One slot, one owner.', 'slot'), 'One slot, one owner.');
  assert.equal(snippet(TEXT, 'glossary', 30), 'While a slot migrates, a call naming …');
});
