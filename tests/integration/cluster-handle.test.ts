// One handle on a cluster whatever its Valkey version (server/cluster/handle.ts), and the cluster's
// operations each written once, held on real clusters: the Valkey 8 sandbox's and, when it is built, the
// Valkey 9.1 cluster of the atomic mode reach a run through one shape; a queue's keys are deleted in
// batches until none is left, and not at all once the turn is no longer the caller's; a script whose
// sha no node holds any more (every script cache flushed) is loaded on NOSCRIPT and sent again.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import { connectCluster, type ClusterHandle } from '../../server/cluster/handle.ts';
import { deleteQueueKeys, deleteQueueKeysOn } from '../../server/cluster/queue-keys.ts';
import { jobKey, mintJobId, queueKey, queueSlot } from '../../server/contract/keyspace/index.ts';
import { atomicRuntime, closeAtomicRuntime } from '../../server/explorer/atomic-runtime.ts';
import { EXPLORER_USER, installExplorerUser, newPassword } from '../../server/explorer/explorer-user.ts';
import { ownerOf, readShards } from '../../server/sandbox/cluster-topology.ts';
import { useSandbox } from '../support/sandbox.ts';
import { boundedTeardown } from '../support/teardown.ts';
import { valkey9ForTests } from '../support/valkey9.ts';

const box = useSandbox({ native: false });
const valkey9 = await valkey9ForTests();
const password = newPassword();
let handle: ClusterHandle | undefined;
after(() =>
  boundedTeardown(async () => {
    handle?.disconnect();
    await closeAtomicRuntime();
  }),
);

/** The Valkey 8 sandbox cluster's handle, connected once for the file. */
async function valkey8(): Promise<ClusterHandle> {
  const { seeds, admin } = box.sandbox.cluster!;
  handle ??= await connectCluster(
    { seeds, admin, explorer: { username: EXPLORER_USER, password } },
    { prepare: (node: Valkey) => installExplorerUser(node, password) },
  );
  return handle;
}

/** The admin's connection to the node that owns `queue`'s slot. */
async function ownerOfQueue(cluster: ClusterHandle, queue: string): Promise<Valkey> {
  const owner = ownerOf(await readShards(cluster.clusterAdmin), queueSlot(queue))!;
  return cluster.clusterAdminNode(owner.address);
}

/**
 * `count` job rows of `queue` written on the node that owns its slot (and, `pending`, named by its
 * pending set); answers that node, the slot, and how many keys the slot holds now.
 */
async function fill(cluster: ClusterHandle, queue: string, count: number, pending = false) {
  const n = queueSlot(queue);
  const node = await ownerOfQueue(cluster, queue);
  const write = node.pipeline();
  for (let i = 0; i < count; i += 1) {
    const id = mintJobId();
    write.hset(jobKey(queue, id), 'state', 'pending');
    if (pending) write.zadd(queueKey(queue, 'pending'), i, id);
  }
  await write.exec();
  const inSlot = async () => Number(await node.call('CLUSTER', 'COUNTKEYSINSLOT', n));
  return { node, n, inSlot };
}

describe('one cluster handle', () => {
  it('reaches the Valkey 8 and the Valkey 9.1 cluster through one shape', async () => {
    const eight = await valkey8();
    assert.match(eight.version, /^8\./);
    assert.equal(eight.ready(), true);
    const servers = await eight.servers();
    assert.equal(servers.length, 3);
    assert.ok(
      servers.every(({ up }) => up),
      JSON.stringify(servers),
    );
    // A reader's commands go out as the explorer, whose account names itself refusing what it may not run.
    const whoami = await eight.cluster.call('ACL', 'WHOAMI').catch((error: Error) => error.message);
    assert.match(String(whoami), /^NOPERM User explorer has no permissions/);
    if (valkey9.skip) return;
    const nine = await atomicRuntime();
    assert.equal(nine.version, valkey9.build!.version);
    // The 9.1 runtime is the handle, and close() (it stops the cluster it started).
    assert.deepEqual(
      Object.keys(nine)
        .filter((key) => key !== 'close')
        .sort(),
      Object.keys(eight).sort(),
    );
    assert.equal(nine.ready(), true);
    assert.ok((await nine.servers()).every(({ up }) => up));
  });

  it('deletes a queue’s keys in batches, and none once the turn is gone', async () => {
    const queue = 'handle-orders';
    const { node, n, inSlot } = await fill(await valkey8(), queue, 2500);
    assert.equal(await inSlot(), 2500);
    await assert.rejects(deleteQueueKeys(node, queue, n, { inTurn: () => false }), /turn of slot \d+ ended/);
    assert.equal(await inSlot(), 2500, 'nothing deleted out of turn');
    // More than one batch of 1,000: deleted to the last.
    assert.equal(await deleteQueueKeys(node, queue, n), 0);
    assert.equal(await inSlot(), 0);
  });

  it('drops a queue inside the server first, the rows its sets name with them', async () => {
    const queue = 'handle-drop';
    const { node, n, inSlot } = await fill(await valkey8(), queue, 50, true);
    assert.equal(await inSlot(), 51, 'fifty rows and the pending set');
    assert.equal(await deleteQueueKeysOn([node], queue, n), 0);
    assert.equal(await inSlot(), 0);
  });

  it('loads a script on NOSCRIPT and sends it again: the locks run with every script cache flushed', async () => {
    const cluster = await valkey8();
    const shards = await readShards(cluster.clusterAdmin);
    await Promise.all(shards.map(({ address }) => cluster.clusterAdminNode(address).call('SCRIPT', 'FLUSH')));
    assert.equal(await cluster.locks.with('handle-test', async () => 'ran'), 'ran');
    assert.equal(await cluster.locks.line.with('handle-test-line', async () => 'ran'), 'ran');
    assert.equal(await cluster.locks.taken('handle-test'), false, 'released with its script');
  });
});
