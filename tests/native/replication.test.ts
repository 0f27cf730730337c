// The module replicates each transition as the plain commands a script would have run — by default each
// its own command, with `replicate script` all of a call's in one EVAL of a fixed body — so a replica
// that has never loaded trafikey follows a native primary either way: after every verb (and after the
// refusals, which replicate nothing), the replica holds the primary's keys, value for value. So does a
// server without the module that loads the primary's AOF.

import assert from 'node:assert/strict';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { installWireIdentity } from '../../server/connectors/install.ts';
import { Jobs } from '../../server/executors/jobs.ts';
import { NativeExecutor } from '../../server/executors/native.ts';
import { IdMinter, jobKey } from '../../server/contract/keyspace/index.ts';
import { nativeModulePath, startValkeyNode, type ValkeyNode } from '../../server/sandbox/valkey-process.ts';
import { converged, received, sameKeys } from '../support/replica.ts';

const minter = new IdMinter(66);
const nodes: ValkeyNode[] = [];
const clients: Valkey[] = [];
const dirs: string[] = [];

after(async () => {
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  await Promise.all(nodes.map((node) => node.stop()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

function open(url: string): Valkey {
  const client = new Valkey(url, { maxRetriesPerRequest: 1 });
  clients.push(client);
  return client;
}

const debug = { 'enable-debug-command': 'local' };

/** A primary with the module (loaded with `moduleArgs`) and a linked replica without it. */
async function pair(moduleArgs: string[]): Promise<{ main: Valkey; copy: Valkey }> {
  const module = nativeModulePath();
  assert.ok(module, 'native-module/target/release/libtrafikey.so is not built');
  // The replica's first sync starts at once, not after the default 5 s wait for more replicas.
  const primary = await startValkeyNode({
    module,
    moduleArgs,
    settings: { ...debug, 'repl-diskless-sync-delay': '0' },
  });
  nodes.push(primary);
  const replica = await startValkeyNode({
    module: null,
    settings: { ...debug, replicaof: `${primary.host} ${primary.port}` },
  });
  nodes.push(replica);
  const [main, copy] = [open(primary.url), open(replica.url)];
  while (!String(await copy.info('replication')).includes('master_link_status:up')) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.doesNotMatch(JSON.stringify(await copy.call('MODULE', 'LIST')), /trafikey/);
  await installWireIdentity(main);
  return { main, copy };
}

/** Every verb, each branch of retry, and a drain, on one queue; `after` sees each step. */
async function everyTransition(
  main: Valkey,
  copy: Valkey,
  queue: string,
  step: (what: string) => Promise<void>,
) {
  const jobs = new Jobs(new NativeExecutor(main));
  const [a, b, c, d] = [minter.mint(), minter.mint(), minter.mint(), minter.mint()];
  await jobs.enqueueMany(
    queue,
    [a, b, c, d].map((id) => ({ id, payload: `p ${id}` })),
  );
  await step('enqueue');
  await jobs.schedule(queue, minter.mint(), 'due', 0);
  await jobs.schedule(queue, minter.mint(), 'later', 4_102_444_800_000);
  await step('schedule');
  const first = (await jobs.claim(queue, 60_000))!;
  const second = (await jobs.claim(queue, 60_000))!;
  await jobs.claim(queue, 0);
  await step('claim');
  assert.equal(await jobs.complete(queue, first.id, first.attempts), 1);
  await step('complete');
  // Refused (stale token, no row): nothing written, nothing sent.
  assert.equal(await jobs.complete(queue, first.id, first.attempts), 0);
  await assert.rejects(jobs.complete(queue, second.id, second.attempts + 1), /EMQSTALE/);
  await step('refusals');
  assert.equal(
    await jobs.retry(queue, second.id, 1, { delayMs: 0, maxAttempts: 3, error: 'boom' }),
    'scheduled',
  );
  await step('retry, scheduled');
  assert.equal(await jobs.promote(queue, 10), 2);
  await step('promote');
  assert.equal(await jobs.reap(queue, 10), 1);
  await step('reap');
  // Out of attempts: dead, and counted.
  const again = (await jobs.claim(queue, 60_000))!;
  await main.hset(jobKey(queue, again.id), 'attempts', '3');
  assert.equal(await jobs.retry(queue, again.id, 3, { delayMs: 0, maxAttempts: 3, error: 'fatal' }), 'dead');
  await step('retry, dead');
  // Drain: the sorted sets the API empties are deleted on both sides.
  for (let job = await jobs.claim(queue, 60_000); job; job = await jobs.claim(queue, 60_000)) {
    assert.equal(await jobs.complete(queue, job.id, job.attempts), 1);
  }
  await step('drain');
  assert.equal(await copy.exists(`emq:{${queue}}:pending`), 0);
  assert.ok((await copy.dbsize()) > 1, 'the replica holds the dataset');
}

/** `count` ids scheduled due now, then promoted in one sweep of `count - 1`; returns the replica's calls. */
async function sweep(main: Valkey, copy: Valkey, queue: string, count: number) {
  const jobs = new Jobs(new NativeExecutor(main));
  const due = Array.from({ length: count }, () => minter.mint());
  await Promise.all(due.map((id) => jobs.schedule(queue, id, `p ${id}`, 0)));
  // One more than the batch: it stays scheduled, so the batch's limit holds on both sides.
  const batch = count - 1;
  await converged(main, copy, 'schedule');
  await received(copy);
  assert.equal(await jobs.promote(queue, batch), batch);
  await converged(main, copy, 'promote, a batch');
  const promoted = await received(copy);
  assert.equal(await copy.zcard(`emq:{${queue}}:schedule`), 1);

  // Claimed with a lease already over, then reaped back in one sweep.
  for (let i = 0; i < batch; i += 1) assert.ok(await jobs.claim(queue, 0));
  await converged(main, copy, 'claim');
  await received(copy);
  assert.equal(await jobs.reap(queue, batch), batch);
  await converged(main, copy, 'reap, a batch');
  const reaped = await received(copy);
  assert.equal(await copy.exists(`emq:{${queue}}:active`), 0, 'the emptied set is gone on the replica too');
  return { batch, promoted, reaped };
}

describe('effects replication (the default)', () => {
  it('a replica without the module follows every transition, effect by effect', async () => {
    const { main, copy } = await pair([]);
    await everyTransition(main, copy, 'ça-va', async (what) => {
      await converged(main, copy, what);
      const calls = await received(copy);
      assert.equal(calls.eval, undefined, `${what}: ${JSON.stringify(calls)}`);
      if (what === 'refusals') assert.deepEqual(calls, {}, 'a refusal sends nothing');
    });
  });

  it('a sweep reaches the replica as one ZREM and one ZADD for its batch, and each row its HSET', async () => {
    const { main, copy } = await pair([]);
    const { batch, promoted, reaped } = await sweep(main, copy, 'sweeps', 40);
    for (const calls of [promoted, reaped]) {
      assert.deepEqual(calls, { multi: 1, exec: 1, zrem: 1, zadd: 1, hset: batch });
    }
  });

  it('a server without the module that loads the AOF ends with the primary keys', async () => {
    await replayedAof([]);
  });
});

describe('script replication (`replicate script`)', () => {
  it('a replica without the module follows every transition, each as one EVAL and no MULTI', async () => {
    const { main, copy } = await pair(['replicate', 'script']);
    await converged(main, copy, 'wire identity');
    await received(copy);
    await everyTransition(main, copy, 'ça-va', async (what) => {
      await converged(main, copy, what);
      const calls = await received(copy);
      if (what === 'refusals') return assert.deepEqual(calls, {}, 'a refusal sends nothing');
      assert.ok(calls.eval! >= 1, `${what}: ${JSON.stringify(calls)}`);
      assert.equal(calls.multi, undefined, `${what} arrived in a transaction: ${JSON.stringify(calls)}`);
      assert.deepEqual(
        Object.keys(calls).filter((name) => name.startsWith('emq.')),
        [],
        'no EMQ.* reaches the replica',
      );
    });
  });

  it('a sweep is one EVAL: one ZREM and one ZADD per thousand ids, and each row its HSET', async () => {
    const { main, copy } = await pair(['replicate', 'script']);
    const small = await sweep(main, copy, 'sweeps', 40);
    for (const calls of [small.promoted, small.reaped]) {
      assert.deepEqual(calls, { eval: 1, zrem: 1, zadd: 1, hset: small.batch });
    }
    // Past Lua's limit on one call's arguments, the moves split: 1,001 ids are two ZREMs and two ZADDs.
    const large = await sweep(main, copy, 'sweeps-large', 1_002);
    for (const calls of [large.promoted, large.reaped]) {
      assert.deepEqual(calls, { eval: 1, zrem: 2, zadd: 2, hset: large.batch });
    }
  });

  it('a server without the module that loads the AOF (EVALs) ends with the primary keys', async () => {
    await replayedAof(['replicate', 'script']);
  });
});

/** Every transition on a primary that appends to its AOF, then that AOF loaded by a server without the module. */
async function replayedAof(moduleArgs: string[]): Promise<void> {
  const module = nativeModulePath();
  assert.ok(module, 'native-module/target/release/libtrafikey.so is not built');
  const [written, replayed] = [
    await mkdtemp(join(tmpdir(), 'emq-aof-')),
    await mkdtemp(join(tmpdir(), 'emq-aof-')),
  ];
  dirs.push(written, replayed);
  // `always`: each write is in the file before its reply, so the copy below holds them all.
  const aof = { appendonly: 'yes', appendfsync: 'always' };
  const primary = await startValkeyNode({ module, moduleArgs, settings: { ...debug, ...aof, dir: written } });
  nodes.push(primary);
  const main = open(primary.url);
  await installWireIdentity(main);
  await everyTransition(main, main, 'aof', async () => {});
  await cp(join(written, 'appendonlydir'), join(replayed, 'appendonlydir'), { recursive: true });
  const replay = await startValkeyNode({ module: null, settings: { ...debug, ...aof, dir: replayed } });
  nodes.push(replay);
  const copy = open(replay.url);
  assert.ok((await copy.dbsize()) > 1, 'the AOF held the dataset');
  await sameKeys(main, copy, 'AOF');
}
