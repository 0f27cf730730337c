// A queue name with nothing in its braces has no hashtag: each of its keys is hashed whole and lands on a
// slot of its own. The slot map then pins each key where it lands (not one pin for `emq:{}:*`), and a
// named queue keeps its one pin for all its keys.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { queueKey, slot } from '../../server/contract/keyspace/index.ts';
import { queuePins } from '../../src/components/explorer/slot-view.ts';
import { routeMarks } from '../../src/components/explorer/node-view.ts';

test('an empty name’s keys are pinned each on its own slot; a named queue on its one slot', () => {
  const empty = queuePins('', slot(queueKey('', 'pending')));
  const at = (label: string) => empty.find((pin) => pin.label === label)?.slot;
  assert.equal(at('emq:{}:active'), 5857);
  assert.equal(at('emq:{}:job:'), 374);
  assert.equal(at('emq:{}:pending'), 7387);
  assert.ok(new Set(empty.filter((pin) => pin.kind === 'queue').map((pin) => pin.slot)).size > 5);
  assert.deepEqual(
    routeMarks('', 7387).filter((m) => m.kind === 'queue'),
    empty.filter((pin) => pin.kind === 'queue'),
  );
  assert.deepEqual(
    queuePins('orders', 105).map((pin) => `${pin.label} ${pin.slot}`),
    ['emq:{orders}:* 105', '{emq}:version 9051'],
  );
});
