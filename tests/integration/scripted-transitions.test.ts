// Every transition of the scripted executor against a real valkey-server: the shared transition
// behaviour (tests/support/transition-behaviour.ts) on the ScriptedExecutor, plus what only the scripts
// have: lane enqueue and the EVALSHA-first path.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IdMinter, jobKey, queueKey } from '../../server/contract/keyspace/index.ts';
import { useSandbox } from '../support/sandbox.ts';
import { describeTransitionBehaviour } from '../support/transition-behaviour.ts';

const box = useSandbox({ cluster: false, native: false });
const fresh = describeTransitionBehaviour(box, 'scripted');
const minter = new IdMinter(2);

describe('lane enqueue', () => {
  it('puts the group on the ring once, and not when paused or at its limit', async () => {
    const { client, jobs } = await fresh();
    const [g1, g2, g3] = ['GRP0000000000a', 'GRP0000000000b', 'GRP0000000000c'];
    await client.sadd(queueKey('orders', 'paused'), g2);
    await client.hset(queueKey('orders', 'glimit'), g3, '1');
    await client.hset(queueKey('orders', 'gactive'), g3, '1');
    for (const group of [g1, g1, g2, g3])
      assert.equal(await jobs.laneEnqueue('orders', group, minter.mint(), 'p'), 1);
    assert.deepEqual(await client.lrange(queueKey('orders', 'ring'), 0, -1), [g1]);
    assert.equal(await client.zcard(queueKey('orders', `g:${g1}:pending`)), 2);
    const id = minter.mint();
    await jobs.laneEnqueue('orders', g1, id, 'p');
    assert.equal(await client.hget(jobKey('orders', id), 'group'), g1);
    assert.equal(await jobs.laneEnqueue('orders', g1, id, 'p'), 0);
  });
});

describe('EVALSHA first', () => {
  it('loads the script on NOSCRIPT after SCRIPT FLUSH, checks its sha and retries once', async () => {
    const { client, jobs } = await fresh();
    await client.call('SCRIPT', 'FLUSH');
    await client.call('CONFIG', 'RESETSTAT');
    assert.equal(await jobs.enqueue('orders', minter.mint(), 'x'), 1);
    const stats = String(await client.info('commandstats'));
    assert.match(stats, /cmdstat_evalsha:calls=2,.*failed_calls=1/);
    assert.match(stats, /cmdstat_script\|load:calls=1,/);
    // Loaded now: the next call is one EVALSHA.
    await jobs.enqueue('orders', minter.mint(), 'y');
    assert.match(String(await client.info('commandstats')), /cmdstat_evalsha:calls=3,.*failed_calls=1/);
  });

  it('recovers a whole pipeline from NOSCRIPT', async () => {
    const { client, jobs } = await fresh();
    await client.call('SCRIPT', 'FLUSH');
    const ids = [minter.mint(), minter.mint(), minter.mint()];
    const verdicts = await jobs.enqueueMany(
      'orders',
      ids.map((id) => ({ id, payload: id })),
    );
    assert.deepEqual(verdicts, [1, 1, 1]);
    assert.deepEqual(await client.zrange(queueKey('orders', 'pending'), 0, -1), ids);
  });
});
