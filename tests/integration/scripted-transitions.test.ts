// Every transition of the scripted executor against a real valkey-server: the effects on each key,
// the replies, and the refusals.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import { Jobs } from '../../server/executors/jobs.ts';
import { ScriptedExecutor } from '../../server/executors/scripted.ts';
import { WireError } from '../../server/executors/wire-error.ts';
import { IdMinter, jobKey, queueKey } from '../../server/keyspace/index.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ cluster: false, native: false });
const minter = new IdMinter(1);
let nextDb = 0;

/** A fresh logical database per test, so the tests cannot see each other's keys. */
async function fresh(): Promise<{ client: Valkey; jobs: Jobs }> {
  const client = box.standalone(nextDb++ % 16);
  await client.flushdb();
  return { client, jobs: new Jobs(new ScriptedExecutor(client)) };
}

async function serverMs(client: Valkey): Promise<number> {
  const [seconds = 0, micros = 0] = (await client.time()).map(Number);
  return seconds * 1000 + Math.floor(micros / 1000);
}

describe('enqueue', () => {
  it('writes the row and puts the id on pending at score 0', async () => {
    const { client, jobs } = await fresh();
    const id = minter.mint();
    assert.equal(await jobs.enqueue('orders', id, '{"n":1}'), 1);
    assert.deepEqual(await client.hgetall(jobKey('orders', id)), {
      state: 'pending',
      attempts: '0',
      payload: '{"n":1}',
    });
    assert.deepEqual(await client.zrange(queueKey('orders', 'pending'), 0, -1, 'WITHSCORES'), [id, '0']);
  });

  it('answers 0 for a duplicate and writes nothing', async () => {
    const { client, jobs } = await fresh();
    const id = minter.mint();
    await jobs.enqueue('orders', id, 'first');
    assert.equal(await jobs.enqueue('orders', id, 'second'), 0);
    assert.equal(await client.hget(jobKey('orders', id), 'payload'), 'first');
    assert.equal(await client.zcard(queueKey('orders', 'pending')), 1);
  });

  it('refuses an id of another kind with EMQKIND, naming found and expected', async () => {
    const { client, jobs } = await fresh();
    await assert.rejects(jobs.enqueue('orders', 'USR0KHTOWnGLuC', 'x'), {
      name: 'WireError',
      message: "EMQKIND expected an id of kind 'JOB' but found 'USR0KHTOWnGLuC'",
    });
    assert.equal(await client.dbsize(), 0);
  });

  it('enqueue-many is one pipeline with one verdict per item, in order', async () => {
    const { client, jobs } = await fresh();
    const [a, b] = [minter.mint(), minter.mint()];
    const verdicts = await jobs.enqueueMany('orders', [
      { id: a, payload: '1' },
      { id: b, payload: '2' },
      { id: a, payload: '3' },
      { id: 'USR0KHTOWnGLuC', payload: '4' },
    ]);
    assert.deepEqual(verdicts.slice(0, 3), [1, 1, 0]);
    assert.ok(verdicts[3] instanceof WireError && verdicts[3].errorClass === 'EMQKIND');
    assert.deepEqual(await client.zrange(queueKey('orders', 'pending'), 0, -1), [a, b]);
  });
});

describe('schedule', () => {
  it('writes the row as scheduled at its run-at score', async () => {
    const { client, jobs } = await fresh();
    const id = minter.mint();
    assert.equal(await jobs.schedule('orders', id, 'later', 4_102_444_800_000), 1);
    assert.equal(await client.hget(jobKey('orders', id), 'state'), 'scheduled');
    assert.equal(await client.zscore(queueKey('orders', 'schedule'), id), '4102444800000');
    assert.equal(await jobs.schedule('orders', id, 'later', 1), 0);
  });
});

describe('claim (@claim2)', () => {
  it('pops the oldest pending id, bumps attempts and leases it on the server clock', async () => {
    const { client, jobs } = await fresh();
    const [older, newer] = [minter.mint(), minter.mint()];
    // Enqueued newest first: pending still serves by bytes, which is mint order.
    await jobs.enqueue('orders', newer, 'b');
    await jobs.enqueue('orders', older, 'a');
    const before = await serverMs(client);
    const claimed = await jobs.claim('orders', 30_000);
    const afterMs = await serverMs(client);
    assert.deepEqual(claimed, { id: older, payload: 'a', attempts: 1 });
    assert.equal(await client.hget(jobKey('orders', older), 'state'), 'active');
    const deadline = Number(await client.zscore(queueKey('orders', 'active'), older));
    assert.ok(deadline >= before + 30_000 && deadline <= afterMs + 30_000, `deadline ${deadline}`);
    assert.deepEqual(await client.zrange(queueKey('orders', 'pending'), 0, -1), [newer]);
  });

  it('answers nil when nothing is pending', async () => {
    const { jobs } = await fresh();
    assert.equal(await jobs.claim('orders', 1000), null);
  });

  it('claims nothing from a paused queue', async () => {
    const { client, jobs } = await fresh();
    await jobs.enqueue('orders', minter.mint(), 'x');
    await client.hset(queueKey('orders', 'meta'), 'paused', '1');
    assert.equal(await jobs.claim('orders', 1000), null);
    assert.equal(await client.zcard(queueKey('orders', 'pending')), 1);
    await client.hset(queueKey('orders', 'meta'), 'paused', '0');
    assert.notEqual(await jobs.claim('orders', 1000), null);
  });
});

describe('complete', () => {
  it('removes the job from active, deletes the row and counts it', async () => {
    const { client, jobs } = await fresh();
    const id = minter.mint();
    await jobs.enqueue('orders', id, 'x');
    const { attempts } = (await jobs.claim('orders', 1000))!;
    assert.equal(await jobs.complete('orders', id, attempts), 1);
    assert.equal(await client.exists(jobKey('orders', id)), 0);
    assert.equal(await client.zcard(queueKey('orders', 'active')), 0);
    assert.equal(await client.hget(queueKey('orders', 'metrics:completed'), 'count'), '1');
    assert.equal(await jobs.complete('orders', id, attempts), 0);
  });

  it('refuses a stale token with EMQSTALE and writes nothing', async () => {
    const { client, jobs } = await fresh();
    const id = minter.mint();
    await jobs.enqueue('orders', id, 'x');
    await jobs.claim('orders', 1000);
    await assert.rejects(jobs.complete('orders', id, 2), {
      message: `EMQSTALE expected token '1' for '${id}' but found '2'`,
    });
    assert.equal(await client.zcard(queueKey('orders', 'active')), 1);
    assert.equal(await client.exists(queueKey('orders', 'metrics:completed')), 0);
  });
});

describe('retry', () => {
  it('schedules the job again after the delay while attempts remain', async () => {
    const { client, jobs } = await fresh();
    const id = minter.mint();
    await jobs.enqueue('orders', id, 'x');
    const { attempts } = (await jobs.claim('orders', 1000))!;
    const before = await serverMs(client);
    assert.equal(
      await jobs.retry('orders', id, attempts, { delayMs: 5000, maxAttempts: 3, error: 'boom' }),
      'scheduled',
    );
    const row = await client.hgetall(jobKey('orders', id));
    assert.equal(row.state, 'scheduled');
    assert.equal(row.last_error, 'boom');
    const runAt = Number(await client.zscore(queueKey('orders', 'schedule'), id));
    assert.ok(runAt >= before + 5000 && runAt <= (await serverMs(client)) + 5000);
    assert.equal(await client.zcard(queueKey('orders', 'active')), 0);
  });

  it('buries the job in dead when out of attempts, and counts it', async () => {
    const { client, jobs } = await fresh();
    const id = minter.mint();
    await jobs.enqueue('orders', id, 'x');
    const { attempts } = (await jobs.claim('orders', 1000))!;
    assert.equal(
      await jobs.retry('orders', id, attempts, { delayMs: 0, maxAttempts: 1, error: 'fatal' }),
      'dead',
    );
    assert.equal(await client.hget(jobKey('orders', id), 'state'), 'dead');
    assert.deepEqual(await client.zrange(queueKey('orders', 'dead'), 0, -1, 'WITHSCORES'), [id, '0']);
    assert.equal(await client.hget(queueKey('orders', 'metrics:failed'), 'count'), '1');
  });

  it('refuses a stale token and answers 0 for a missing row', async () => {
    const { jobs } = await fresh();
    const id = minter.mint();
    await jobs.enqueue('orders', id, 'x');
    await jobs.claim('orders', 1000);
    await assert.rejects(jobs.retry('orders', id, 9, { delayMs: 0, maxAttempts: 3, error: 'e' }), {
      message: `EMQSTALE expected token '1' for '${id}' but found '9'`,
    });
    assert.equal(await jobs.retry('orders', minter.mint(), 1, { delayMs: 0, maxAttempts: 3, error: 'e' }), 0);
  });
});

describe('promote and reap, on real server time', () => {
  it('promote moves due jobs only, within the batch', async () => {
    const { client, jobs } = await fresh();
    const now = await serverMs(client);
    const due = [minter.mint(), minter.mint(), minter.mint()];
    const later = minter.mint();
    for (const id of due) await jobs.schedule('orders', id, 'x', now - 10);
    await jobs.schedule('orders', later, 'x', now + 60_000);
    assert.equal(await jobs.promote('orders', 2), 2);
    assert.equal(await jobs.promote('orders', 100), 1);
    assert.deepEqual(await client.zrange(queueKey('orders', 'pending'), 0, -1), due);
    assert.deepEqual(await client.zrange(queueKey('orders', 'schedule'), 0, -1), [later]);
    for (const id of due) assert.equal(await client.hget(jobKey('orders', id), 'state'), 'pending');
  });

  it('reap returns expired claims to pending once their lease has passed', async () => {
    const { client, jobs } = await fresh();
    const [short, long] = [minter.mint(), minter.mint()];
    await jobs.enqueue('orders', short, 'x');
    await jobs.enqueue('orders', long, 'y');
    await jobs.claim('orders', 50);
    await jobs.claim('orders', 60_000);
    assert.equal(await jobs.reap('orders'), 0);
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(await jobs.reap('orders'), 1);
    assert.deepEqual(await client.zrange(queueKey('orders', 'pending'), 0, -1), [short]);
    assert.equal(await client.hget(jobKey('orders', short), 'state'), 'pending');
    // The fencing token survives the reap: the next claim is attempt 2.
    assert.equal((await jobs.claim('orders', 1000))!.attempts, 2);
  });
});

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
