// Loaded with `replicate verbatim`, the module sends enqueue, schedule and complete (whose writes are
// a pure function of their arguments and the dataset) to the replica as the EMQ.* call itself, and
// the rest as their effects: a replica that has loaded trafikey ends with the primary's digest after
// every verb, and its command counts show which way each verb came.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { installWireIdentity } from '../../server/connectors/install.ts';
import { Jobs } from '../../server/executors/jobs.ts';
import { NativeExecutor } from '../../server/executors/native.ts';
import { IdMinter } from '../../server/contract/keyspace/index.ts';
import { nativeModulePath, startValkeyNode, type ValkeyNode } from '../../server/sandbox/valkey-process.ts';
import { converged, received } from '../support/replica.ts';

const minter = new IdMinter(67);
let primary: ValkeyNode;
let replica: ValkeyNode;
let main: Valkey;
let copy: Valkey;

before(async () => {
  const module = nativeModulePath();
  assert.ok(module, 'native-module/target/release/libtrafikey.so is not built');
  const settings = { 'enable-debug-command': 'local', 'repl-diskless-sync-delay': '0' };
  primary = await startValkeyNode({ module, moduleArgs: ['replicate', 'verbatim'], settings });
  replica = await startValkeyNode({
    module,
    settings: { 'enable-debug-command': 'local', replicaof: `${primary.host} ${primary.port}` },
  });
  main = new Valkey(primary.url, { maxRetriesPerRequest: 1 });
  copy = new Valkey(replica.url, { maxRetriesPerRequest: 1 });
  while (!String(await copy.info('replication')).includes('master_link_status:up')) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});

after(async () => {
  await Promise.all([main, copy].map((client) => client?.quit().catch(() => client.disconnect())));
  await Promise.all([replica?.stop(), primary?.stop()]);
});

/** Waits for the replica to apply what the primary sent, compares it key by key, returns its new calls. */
async function caughtUp(what: string): Promise<Record<string, number>> {
  await converged(main, copy, what);
  return received(copy);
}

describe('verbatim replication', () => {
  it('a replica with the module follows every verb; the pure verbs arrive as themselves', async () => {
    await installWireIdentity(main);
    await caughtUp('wire identity');
    const jobs = new Jobs(new NativeExecutor(main));
    const queue = 'verbatim';
    const [a, b] = [minter.mint(), minter.mint()];
    await jobs.enqueueMany(
      queue,
      [a, b].map((id) => ({ id, payload: `p ${id}` })),
    );
    assert.deepEqual(await caughtUp('enqueue'), { 'emq.enqueue': 2 });
    await jobs.schedule(queue, minter.mint(), 'due', 0);
    assert.deepEqual(await caughtUp('schedule'), { 'emq.schedule': 1 });

    // Claim reads the server's clock: it still replicates its effects.
    const first = (await jobs.claim(queue, 60_000))!;
    assert.ok(await jobs.claim(queue, 0), 'a second job, its lease already over');
    const claimed = await caughtUp('claim');
    assert.equal(claimed['emq.claim'], undefined, 'claim is not replicated verbatim');
    assert.ok(claimed.zrem && claimed.zadd && claimed.hset, JSON.stringify(claimed));

    assert.equal(await jobs.complete(queue, first.id, first.attempts), 1);
    assert.deepEqual(await caughtUp('complete'), { 'emq.complete': 1 });
    // A refused complete (the token is stale) wrote nothing, so nothing is sent.
    assert.equal(await jobs.complete(queue, first.id, first.attempts), 0);
    assert.deepEqual(await caughtUp('a stale complete'), {});

    assert.equal(await jobs.reap(queue, 10), 1);
    const reaped = await caughtUp('reap');
    assert.equal(reaped['emq.reap'], undefined, 'reap is not replicated verbatim');
    assert.equal(await jobs.promote(queue, 10), 1);
    await caughtUp('promote');
    const third = (await jobs.claim(queue, 60_000))!;
    assert.equal(
      await jobs.retry(queue, third.id, third.attempts, { delayMs: 0, maxAttempts: 3, error: 'x' }),
      'scheduled',
    );
    assert.equal((await caughtUp('retry'))['emq.retry'], undefined, 'retry is not replicated verbatim');
    assert.equal(await jobs.promote(queue, 10), 1);
    await caughtUp('promote again');
    for (let job = await jobs.claim(queue, 60_000); job; job = await jobs.claim(queue, 60_000)) {
      assert.equal(await jobs.complete(queue, job.id, job.attempts), 1);
    }
    await caughtUp('drain');
    assert.ok((await copy.dbsize()) > 1, 'the replica holds the dataset');
  });
});
