// slot() against the server: for thousands of generated keys — braces in every position, empty braces,
// unicode, NUL and raw bytes — our slot equals the cluster node's CLUSTER KEYSLOT.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { slot } from '../../server/contract/keyspace/index.ts';
import { seededRandom } from '../../server/seeded-random.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ native: false });
const KEY_COUNT = 2500;

const PIECES = [
  '{',
  '}',
  '{}',
  '}{',
  'emq:',
  'orders',
  'a',
  '\u0000',
  'é',
  '🙂',
  '中',
  ':',
  ' ',
  'job:',
  '{{',
  '}}',
];

function generateKey(next: () => number): Buffer {
  if (next() < 0.15) {
    // Raw bytes, not all of them valid UTF-8.
    return Buffer.from(Array.from({ length: Math.floor(next() * 24) }, () => Math.floor(next() * 256)));
  }
  let key = '';
  const length = Math.floor(next() * 12);
  for (let i = 0; i < length; i += 1) key += PIECES[Math.floor(next() * PIECES.length)];
  return Buffer.from(key, 'utf8');
}

describe('slot() equals CLUSTER KEYSLOT', () => {
  it(`for ${KEY_COUNT} generated keys`, async () => {
    const seed = Number(process.env.SLOT_SEED ?? 20261129);
    const next = seededRandom(seed);
    const keys = Array.from({ length: KEY_COUNT }, () => generateKey(next));
    const client = box.cluster();
    const pipeline = client.pipeline();
    for (const key of keys) pipeline.call('CLUSTER', 'KEYSLOT', key);
    const answers = (await pipeline.exec())!;
    let braced = 0;
    keys.forEach((key, i) => {
      const [error, serverSlot] = answers[i]!;
      assert.equal(error, null);
      assert.equal(slot(new Uint8Array(key)), serverSlot, `seed ${seed}, key ${key.toString('hex')}`);
      if (key.includes(0x7b)) braced += 1;
    });
    // The generator must really exercise the hashtag rule.
    assert.ok(braced > KEY_COUNT / 3, `only ${braced} keys held a brace`);
  });

  it('for text keys as the host sends them, unicode and NUL included', async () => {
    const client = box.cluster();
    for (const key of [
      'emq:{ça-va}:pending',
      'emq:{🙂}:job:JOB0Nb1VTbfnu4',
      'a\u0000{b\u0000}c',
      '{}',
      '{emq}:version',
    ]) {
      assert.equal(slot(key), await client.call('CLUSTER', 'KEYSLOT', key), JSON.stringify(key));
    }
  });
});
