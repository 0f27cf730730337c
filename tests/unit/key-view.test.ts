// A key as the explorer shows it: its segments are the key's parts end to end, each with the UTF-8
// bytes it goes on the wire as, whatever the queue's name holds (cut from the key's one encoding, they
// must be what encoding each part alone gives), and its hashtag and slot are the grammar's.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { viewKey } from '../../server/contract/experiments/segments.ts';
import { hashtag, mintJobId, queueKey, rowBase, slot } from '../../server/contract/keyspace/index.ts';

/** Two hex digits a byte, spaced, as the explorer shows them, from Node's own encoder. */
const hexOf = (text: string) => (Buffer.from(text, 'utf8').toString('hex').match(/../g) ?? []).join(' ');

function holdView(key: string): void {
  const view = viewKey(key);
  assert.equal(view.segments.map((segment) => segment.text).join(''), key, 'the parts, end to end');
  for (const segment of view.segments) assert.equal(segment.hex, hexOf(segment.text), segment.part);
  assert.equal(view.bytes, Buffer.byteLength(key, 'utf8'));
  assert.equal(view.hashtag, hashtag(key));
  assert.equal(view.slot, slot(key));
}

describe("a key's view", () => {
  // Names the grammar takes: any text but braces, NUL and lone surrogates (two-, three- and four-byte
  // characters included).
  const name = fc
    .string({ unit: 'binary', minLength: 1, maxLength: 12 })
    .filter((text) => !/[{}\0]/.test(text) && text.isWellFormed());

  it("a queue's keys: five segments, each the bytes of its own text", () => {
    fc.assert(
      fc.property(name, (queue) => {
        for (const key of [queueKey(queue, 'pending'), rowBase(queue) + mintJobId()]) {
          holdView(key);
          assert.deepEqual(
            viewKey(key).segments.map((segment) => segment.part),
            ['prefix', 'open', 'queue', 'close', 'type'],
          );
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('any other text after the row base, braces and lone surrogates included', () => {
    fc.assert(
      fc.property(name, fc.string({ unit: 'binary', maxLength: 16 }), (queue, rest) => {
        holdView(rowBase(queue) + rest);
      }),
      { numRuns: 2000 },
    );
  });

  it('a key off the layout is one segment', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 24 }), (key) => {
        holdView(key);
      }),
      { numRuns: 2000 },
    );
  });
});
