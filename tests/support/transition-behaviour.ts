// What every transition does, whichever executor runs it: the effects on each key, in the order
// docs/wire.md gives, and the replies. The scripted executor's tests and the native module's tests both
// run this one suite, so the two cannot be held to different behaviour.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import { installWireIdentity } from '../../server/connectors/install.ts';
import { callFor } from '../../server/contract/calls.ts';
import type { Executor } from '../../server/executors/executor.ts';
import { Jobs } from '../../server/executors/jobs.ts';
import { NativeExecutor } from '../../server/executors/native.ts';
import { ScriptedExecutor } from '../../server/executors/scripted.ts';
import { TRANSITIONS, type CoreTransition } from '../../server/contract/transitions.ts';
import { WireError } from '../../server/executors/wire-error.ts';
import { IdMinter, jobKey, queueKey, versionKey } from '../../server/contract/keyspace/index.ts';
import { dumpKeyspace } from '../../server/inspect/keyspace-dump.ts';
import { serverMs, type TestSandbox } from './sandbox.ts';

export interface Fresh {
  client: Valkey;
  jobs: Jobs;
  executor: Executor;
}

/**
 * Fresh databases of `box`'s standalone node, one per test; for the native executor each one holds the
 * installed wire identity (and nothing else), as an operator leaves it.
 */
function freshDatabases(box: TestSandbox, kind: Executor['kind']): () => Promise<Fresh> {
  return async () => {
    const { client } = box.nextDatabase();
    await client.flushdb();
    if (kind === 'native') await installWireIdentity(client);
    const executor = kind === 'native' ? new NativeExecutor(client) : new ScriptedExecutor(client);
    return { client, jobs: new Jobs(executor), executor };
  };
}

/** Describes the shared suite; answers its fresh databases, for the tests only one executor has. */
export function describeTransitionBehaviour(box: TestSandbox, kind: Executor['kind']): () => Promise<Fresh> {
  const fresh = freshDatabases(box, kind);
  const minter = new IdMinter(kind === 'native' ? 61 : 1);
  /** A fresh database holding one job, enqueued with payload x and claimed: its token is `attempts`. */
  const claimedJob = async (leaseMs = 1000) => {
    const world = await fresh();
    const id = minter.mint();
    await world.jobs.enqueue('orders', id, 'x');
    const { attempts } = (await world.jobs.claim('orders', leaseMs))!;
    return { ...world, id, attempts };
  };
  /** What a fresh database holds before any transition. */
  const baseline = kind === 'native' ? [versionKey()] : [];
  const title = (transition: CoreTransition) =>
    kind === 'native' ? TRANSITIONS[transition].command : `${transition} (${TRANSITIONS[transition].script})`;
  const zrange = (client: Valkey, type: 'pending' | 'active' | 'schedule' | 'dead') =>
    client.zrange(queueKey('orders', type), 0, -1, 'WITHSCORES');

  describe(title('enqueue'), () => {
    it('writes the row (state, attempts, payload, in that order) and puts the id on pending at 0', async () => {
      const { client, jobs } = await fresh();
      const id = minter.mint();
      assert.equal(await jobs.enqueue('orders', id, '{"n":1}'), 1);
      const row = await client.hgetall(jobKey('orders', id));
      assert.deepEqual(Object.entries(row), [
        ['state', 'pending'],
        ['attempts', '0'],
        ['payload', '{"n":1}'],
      ]);
      assert.deepEqual(await zrange(client, 'pending'), [id, '0']);
      assert.deepEqual((await client.keys('emq:*')).sort(), [
        jobKey('orders', id),
        queueKey('orders', 'pending'),
      ]);
    });

    it('answers 0 for a duplicate and leaves the first row as it was', async () => {
      const { client, jobs } = await fresh();
      const id = minter.mint();
      await jobs.enqueue('orders', id, 'first');
      assert.equal(await jobs.enqueue('orders', id, 'second'), 0);
      assert.equal(await client.hget(jobKey('orders', id), 'payload'), 'first');
      assert.equal(await client.zcard(queueKey('orders', 'pending')), 1);
    });

    it('counts a row key of any type as a duplicate, as EXISTS does', async () => {
      const { client, jobs } = await fresh();
      const id = minter.mint();
      await client.set(jobKey('orders', id), 'not a hash');
      assert.equal(await jobs.enqueue('orders', id, 'x'), 0);
      assert.equal(await client.exists(queueKey('orders', 'pending')), 0);
    });

    it('serves enqueue-many as one pipeline, one verdict per item, in order', async () => {
      const { client, jobs } = await fresh();
      const [a, b] = [minter.mint(), minter.mint()];
      const verdicts = await jobs.enqueueMany('orders', [
        { id: a, payload: '1' },
        { id: b, payload: '2' },
        { id: a, payload: '3' },
        { id: 'USR0KHTOWnGLuC', payload: '4' },
      ]);
      assert.deepEqual(verdicts.slice(0, 3), [1, 1, 0]);
      assert.ok(verdicts[3] instanceof WireError);
      assert.equal(verdicts[3].message, "EMQKIND expected an id of kind 'JOB' but found 'USR0KHTOWnGLuC'");
      assert.deepEqual(await client.zrange(queueKey('orders', 'pending'), 0, -1), [a, b]);
    });

    it('keeps payload bytes as they were sent', async () => {
      const { client, jobs } = await fresh();
      const id = minter.mint();
      const payload = 'ça va \u0000 🙂 \'"\\';
      await jobs.enqueue('orders', id, payload);
      assert.equal(await client.hget(jobKey('orders', id), 'payload'), payload);
    });
  });

  describe(title('schedule'), () => {
    it('writes the row as scheduled and the id into schedule at its run-at score', async () => {
      const { client, jobs } = await fresh();
      const id = minter.mint();
      assert.equal(await jobs.schedule('orders', id, 'later', 4_102_444_800_000), 1);
      assert.deepEqual(Object.entries(await client.hgetall(jobKey('orders', id))), [
        ['state', 'scheduled'],
        ['attempts', '0'],
        ['payload', 'later'],
      ]);
      assert.deepEqual(await zrange(client, 'schedule'), [id, '4102444800000']);
      assert.equal(await client.exists(queueKey('orders', 'pending')), 0);
    });

    it('answers 0 for a duplicate, whether the row is scheduled or pending', async () => {
      const { client, jobs } = await fresh();
      const [scheduled, pending] = [minter.mint(), minter.mint()];
      await jobs.schedule('orders', scheduled, 'a', 1);
      await jobs.enqueue('orders', pending, 'b');
      assert.equal(await jobs.schedule('orders', scheduled, 'c', 2), 0);
      assert.equal(await jobs.schedule('orders', pending, 'c', 2), 0);
      assert.deepEqual(await zrange(client, 'schedule'), [scheduled, '1']);
    });
  });

  describe(title('claim'), () => {
    it('pops the oldest pending id, bumps attempts, and leases it on the server clock', async () => {
      const { client, jobs } = await fresh();
      const [older, newer] = [minter.mint(), minter.mint()];
      await jobs.enqueue('orders', newer, 'b');
      await jobs.enqueue('orders', older, 'a');
      const before = await serverMs(client);
      const claimed = await jobs.claim('orders', 30_000);
      const after = await serverMs(client);
      assert.deepEqual(claimed, { id: older, payload: 'a', attempts: 1 });
      assert.deepEqual(Object.entries(await client.hgetall(jobKey('orders', older))), [
        ['state', 'active'],
        ['attempts', '1'],
        ['payload', 'a'],
      ]);
      const deadline = Number(await client.zscore(queueKey('orders', 'active'), older));
      assert.ok(deadline >= before + 30_000 && deadline <= after + 30_000, `deadline ${deadline}`);
      assert.deepEqual(await client.zrange(queueKey('orders', 'pending'), 0, -1), [newer]);
    });

    it('answers nil when nothing is pending, and writes nothing', async () => {
      const { client, jobs } = await fresh();
      assert.equal(await jobs.claim('orders', 1000), null);
      assert.deepEqual(await client.keys('*'), baseline);
    });

    it('claims nothing from a paused queue, and again once it is unpaused', async () => {
      const { client, jobs } = await fresh();
      await jobs.enqueue('orders', minter.mint(), 'x');
      await client.hset(queueKey('orders', 'meta'), 'paused', '1');
      assert.equal(await jobs.claim('orders', 1000), null);
      assert.equal(await client.zcard(queueKey('orders', 'pending')), 1);
      await client.hset(queueKey('orders', 'meta'), 'paused', '0');
      assert.notEqual(await jobs.claim('orders', 1000), null);
    });

    it('counts attempts up across claims (the fencing token), and reads a missing payload as empty', async () => {
      const { client, jobs } = await fresh();
      const id = minter.mint();
      await client.hset(jobKey('orders', id), 'state', 'pending', 'attempts', '4');
      await client.zadd(queueKey('orders', 'pending'), 0, id);
      assert.deepEqual(await jobs.claim('orders', 1000), { id, payload: '', attempts: 5 });
    });
  });

  describe(title('complete'), () => {
    it('removes the id from active, deletes the row and counts it; then answers 0', async () => {
      const { client, jobs, id, attempts } = await claimedJob();
      assert.equal(await jobs.complete('orders', id, attempts), 1);
      assert.equal(await client.exists(jobKey('orders', id)), 0);
      assert.equal(await client.exists(queueKey('orders', 'active')), 0);
      assert.deepEqual(await client.hgetall(queueKey('orders', 'metrics:completed')), { count: '1' });
      assert.equal(await jobs.complete('orders', id, attempts), 0);
      assert.deepEqual(await client.hgetall(queueKey('orders', 'metrics:completed')), { count: '1' });
    });
  });

  describe(title('retry'), () => {
    it('records the error and schedules the job at now + delay while attempts remain', async () => {
      const { client, jobs, id, attempts } = await claimedJob();
      const before = await serverMs(client);
      assert.equal(
        await jobs.retry('orders', id, attempts, { delayMs: 5000, maxAttempts: 3, error: 'boom' }),
        'scheduled',
      );
      const after = await serverMs(client);
      assert.deepEqual(await client.hgetall(jobKey('orders', id)), {
        state: 'scheduled',
        attempts: '1',
        payload: 'x',
        last_error: 'boom',
      });
      const runAt = Number(await client.zscore(queueKey('orders', 'schedule'), id));
      assert.ok(runAt >= before + 5000 && runAt <= after + 5000, `run-at ${runAt}`);
      assert.equal(await client.exists(queueKey('orders', 'active')), 0);
      assert.equal(await client.exists(queueKey('orders', 'metrics:failed')), 0);
    });

    it('buries the job in dead at 0 when attempts reach max_attempts, and counts it', async () => {
      const { client, jobs, id, attempts } = await claimedJob();
      assert.equal(
        await jobs.retry('orders', id, attempts, { delayMs: 0, maxAttempts: 1, error: 'fatal' }),
        'dead',
      );
      assert.equal(await client.hget(jobKey('orders', id), 'state'), 'dead');
      assert.equal(await client.hget(jobKey('orders', id), 'last_error'), 'fatal');
      assert.deepEqual(await zrange(client, 'dead'), [id, '0']);
      assert.deepEqual(await client.hgetall(queueKey('orders', 'metrics:failed')), { count: '1' });
      assert.equal(await client.exists(queueKey('orders', 'schedule')), 0);
    });

    it('answers 0 for a missing row and writes nothing', async () => {
      const { client, jobs } = await fresh();
      assert.equal(
        await jobs.retry('orders', minter.mint(), 1, { delayMs: 0, maxAttempts: 3, error: 'e' }),
        0,
      );
      assert.deepEqual(await client.keys('*'), baseline);
    });
  });

  describe(title('promote'), () => {
    it('moves due ids only, in score order, within the batch, setting state pending', async () => {
      const { client, jobs } = await fresh();
      const now = await serverMs(client);
      const due = [minter.mint(), minter.mint(), minter.mint()];
      const later = minter.mint();
      // Scheduled newest first with the oldest run-at: promote takes score order, not id order.
      await jobs.schedule('orders', due[2]!, 'x', now - 30);
      await jobs.schedule('orders', due[1]!, 'x', now - 20);
      await jobs.schedule('orders', due[0]!, 'x', now - 10);
      await jobs.schedule('orders', later, 'x', now + 60_000);
      assert.equal(await jobs.promote('orders', 2), 2);
      assert.deepEqual(await client.zrange(queueKey('orders', 'pending'), 0, -1), [due[1], due[2]]);
      assert.equal(await jobs.promote('orders', 100), 1);
      assert.equal(await jobs.promote('orders', 100), 0);
      assert.deepEqual(await client.zrange(queueKey('orders', 'pending'), 0, -1), due);
      assert.deepEqual(await client.zrange(queueKey('orders', 'schedule'), 0, -1), [later]);
      for (const id of due) assert.equal(await client.hget(jobKey('orders', id), 'state'), 'pending');
      assert.equal(await client.hget(jobKey('orders', later), 'state'), 'scheduled');
    });

    it('moves nothing for batch 0 and everything due for a negative batch', async () => {
      const { client, jobs, executor } = await fresh();
      for (let i = 0; i < 3; i += 1) await jobs.schedule('orders', minter.mint(), 'x', 0);
      assert.equal(await executor.run(callFor('promote', 'orders', { batch: 0 })), 0);
      assert.equal(await executor.run({ ...callFor('promote', 'orders', { batch: 0 }), args: ['-1'] }), 3);
      assert.equal(await client.zcard(queueKey('orders', 'pending')), 3);
    });
  });

  describe(title('reap'), () => {
    it('returns ids whose lease passed to pending, keeps live leases, and keeps the token', async () => {
      const { client, jobs, executor } = await fresh();
      const [short, long] = [minter.mint(), minter.mint()];
      await jobs.enqueue('orders', short, 'x');
      await jobs.enqueue('orders', long, 'y');
      await jobs.claim('orders', 400);
      await jobs.claim('orders', 60_000);
      assert.equal(await jobs.reap('orders'), 0);
      await new Promise((resolve) => setTimeout(resolve, 450));
      assert.equal(await executor.run(callFor('reap', 'orders', { batch: 0 })), 0);
      assert.equal(await jobs.reap('orders'), 1);
      assert.deepEqual(await zrange(client, 'pending'), [short, '0']);
      assert.deepEqual(await client.zrange(queueKey('orders', 'active'), 0, -1), [long]);
      assert.equal(await client.hget(jobKey('orders', short), 'state'), 'pending');
      assert.equal((await jobs.claim('orders', 1000))!.attempts, 2);
    });

    it('treats a lease whose deadline is now as passed (lease 0)', async () => {
      const { client, jobs } = await fresh();
      const ids = [minter.mint(), minter.mint(), minter.mint()];
      for (const id of ids) await jobs.enqueue('orders', id, 'x');
      for (const _ of ids) await jobs.claim('orders', 0);
      assert.equal(await jobs.reap('orders', 2), 2);
      assert.equal(await jobs.reap('orders', 2), 1);
      assert.deepEqual(await client.zrange(queueKey('orders', 'pending'), 0, -1), ids);
    });
  });

  describe(`the refusals (${kind})`, () => {
    it('refuses an id of another kind with EMQKIND, naming found and expected, and writes nothing', async () => {
      const { client, jobs } = await fresh();
      await assert.rejects(jobs.enqueue('orders', 'USR0KHTOWnGLuC', 'x'), {
        name: 'WireError',
        message: "EMQKIND expected an id of kind 'JOB' but found 'USR0KHTOWnGLuC'",
      });
      await assert.rejects(jobs.schedule('orders', 'USR0KHTOWnGLuC', 'x', 0), { name: 'WireError' });
      assert.deepEqual(await client.keys('*'), baseline);
    });

    it('refuses a stale token on complete and retry with EMQSTALE, and writes nothing', async () => {
      const { client, jobs, id } = await claimedJob(60_000);
      const before = await dumpKeyspace(client);
      await assert.rejects(jobs.complete('orders', id, 2), {
        message: `EMQSTALE expected token '1' for '${id}' but found '2'`,
      });
      await assert.rejects(jobs.retry('orders', id, 0, { delayMs: 0, maxAttempts: 3, error: 'e' }), {
        message: `EMQSTALE expected token '1' for '${id}' but found '0'`,
      });
      assert.deepEqual(await dumpKeyspace(client), before);
    });
  });

  return fresh;
}
