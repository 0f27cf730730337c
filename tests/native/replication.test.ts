// The module replicates each transition's effects as the plain commands a script would have run, so a
// replica that has never loaded trafikey follows a native primary: after every verb (and after the
// refusals, which replicate nothing), the replica's dataset digest equals the primary's.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { installWireIdentity } from '../../server/connectors/install.ts';
import { Jobs } from '../../server/executors/jobs.ts';
import { NativeExecutor } from '../../server/executors/native.ts';
import { IdMinter, jobKey } from '../../server/contract/keyspace/index.ts';
import { nativeModulePath, startValkeyNode, type ValkeyNode } from '../../server/sandbox/valkey-process.ts';
import { converged } from '../support/replica.ts';

const minter = new IdMinter(66);
let primary: ValkeyNode;
let replica: ValkeyNode;
const clients: Valkey[] = [];

before(async () => {
  const module = nativeModulePath();
  assert.ok(module, 'native-module/target/release/libtrafikey.so is not built');
  primary = await startValkeyNode({
    module,
    // The replica's first sync starts at once, not after the default 5 s wait for more replicas.
    settings: { 'enable-debug-command': 'local', 'repl-diskless-sync-delay': '0' },
  });
  replica = await startValkeyNode({
    module: null,
    settings: { 'enable-debug-command': 'local', replicaof: `${primary.host} ${primary.port}` },
  });
});

after(async () => {
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  await Promise.all([replica?.stop(), primary?.stop()]);
});

function open(url: string): Valkey {
  const client = new Valkey(url, { maxRetriesPerRequest: 1 });
  clients.push(client);
  return client;
}

describe('effects replication', () => {
  it('a replica without the module follows every native transition', async () => {
    const main = open(primary.url);
    const copy = open(replica.url);
    for (;;) {
      const info = String(await copy.info('replication'));
      if (info.includes('master_link_status:up')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.doesNotMatch(JSON.stringify(await copy.call('MODULE', 'LIST')), /trafikey/);
    await installWireIdentity(main);
    const jobs = new Jobs(new NativeExecutor(main));
    const queue = 'ça-va';

    const [a, b, c, d] = [minter.mint(), minter.mint(), minter.mint(), minter.mint()];
    await jobs.enqueueMany(
      queue,
      [a, b, c, d].map((id) => ({ id, payload: `p ${id}` })),
    );
    await converged(main, copy, 'enqueue');
    await jobs.schedule(queue, minter.mint(), 'due', 0);
    await jobs.schedule(queue, minter.mint(), 'later', 4_102_444_800_000);
    await converged(main, copy, 'schedule');
    const first = (await jobs.claim(queue, 60_000))!;
    const second = (await jobs.claim(queue, 60_000))!;
    await jobs.claim(queue, 0);
    await converged(main, copy, 'claim');
    assert.equal(await jobs.complete(queue, first.id, first.attempts), 1);
    await converged(main, copy, 'complete');
    assert.equal(
      await jobs.retry(queue, second.id, 1, { delayMs: 0, maxAttempts: 3, error: 'boom' }),
      'scheduled',
    );
    await converged(main, copy, 'retry, scheduled');
    assert.equal(await jobs.promote(queue, 10), 2);
    await converged(main, copy, 'promote');
    assert.equal(await jobs.reap(queue, 10), 1);
    await converged(main, copy, 'reap');
    // Out of attempts: dead, and counted.
    const again = (await jobs.claim(queue, 60_000))!;
    await main.hset(jobKey(queue, again.id), 'attempts', '3');
    assert.equal(
      await jobs.retry(queue, again.id, 3, { delayMs: 0, maxAttempts: 3, error: 'fatal' }),
      'dead',
    );
    await converged(main, copy, 'retry, dead');
    // Drain: the sorted sets the API empties are deleted on both sides.
    for (let job = await jobs.claim(queue, 60_000); job; job = await jobs.claim(queue, 60_000)) {
      assert.equal(await jobs.complete(queue, job.id, job.attempts), 1);
    }
    await converged(main, copy, 'drain');
    assert.equal(await copy.exists(`emq:{${queue}}:pending`), 0);
    assert.ok((await copy.dbsize()) > 1, 'the replica holds the dataset');
  });

  it('a sweep reaches the replica as one ZREM and one ZADD for its batch, and each row its HSET', async () => {
    const main = open(primary.url);
    const copy = open(replica.url);
    await installWireIdentity(main);
    const jobs = new Jobs(new NativeExecutor(main));
    const queue = 'sweeps';
    const due = Array.from({ length: 40 }, () => minter.mint());
    for (const id of due) await jobs.schedule(queue, id, `p ${id}`, 0);
    // One more than the batch: it stays scheduled, so the batch's limit holds on both sides.
    const batch = due.length - 1;
    await converged(main, copy, 'schedule');
    const calls = async () => {
      const stats = String(await copy.info('commandstats'));
      const of = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
      return { zrem: of('zrem'), zadd: of('zadd'), hset: of('hset') };
    };
    await copy.call('CONFIG', 'RESETSTAT');
    assert.equal(await jobs.promote(queue, batch), batch);
    await converged(main, copy, 'promote, a batch');
    assert.deepEqual(await calls(), { zrem: 1, zadd: 1, hset: batch });
    assert.equal(await copy.zcard(`emq:{${queue}}:schedule`), 1);

    // Claimed with a lease already over, then reaped back in one sweep.
    for (let i = 0; i < batch; i += 1) assert.ok(await jobs.claim(queue, 0));
    await converged(main, copy, 'claim');
    await copy.call('CONFIG', 'RESETSTAT');
    assert.equal(await jobs.reap(queue, batch), batch);
    await converged(main, copy, 'reap, a batch');
    assert.deepEqual(await calls(), { zrem: 1, zadd: 1, hset: batch });
    assert.equal(await copy.exists(`emq:{${queue}}:active`), 0, 'the emptied set is gone on the replica too');
  });
});
