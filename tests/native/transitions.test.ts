// Every EMQ.* verb against a real `valkey-server --loadmodule libtrafikey.so`: the shared transition
// behaviour (tests/support/transition-behaviour.ts) on the NativeExecutor, plus what only the module has.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IdMinter, queueKey, versionKey, WIRE6_IDENTITY } from '../../server/contract/keyspace/index.ts';
import { describeTransitionBehaviour } from '../support/transition-behaviour.ts';
import { useNativeSandbox } from './support.ts';

const box = useNativeSandbox({ cluster: false });
const fresh = describeTransitionBehaviour(box, 'native');
const minter = new IdMinter(62);

describe('EMQ.CLAIM on the wire', () => {
  it('replies [id (bulk), payload (bulk), attempts (integer)] on the wire', async () => {
    const { client, jobs } = await fresh();
    const id = minter.mint();
    await jobs.enqueue('orders', id, '42');
    const reply = await client.call(
      'EMQ.CLAIM',
      3,
      queueKey('orders', 'pending'),
      queueKey('orders', 'active'),
      queueKey('orders', 'job:'),
      1000,
    );
    assert.deepEqual(reply, [id, '42', 1]);
  });
});

describe('the identity read', () => {
  it('leaves {emq}:version holding the identity it found', async () => {
    const { client, jobs } = await fresh();
    await jobs.enqueue('orders', minter.mint(), 'x');
    await jobs.claim('orders', 1000);
    assert.equal(await client.get(versionKey()), WIRE6_IDENTITY);
  });
});
