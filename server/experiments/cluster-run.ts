// How a run uses the shared cluster. A cluster node has one keyspace, and readers type exact queue
// names, so two runs on one queue would see each other's jobs. A run therefore holds its queue's slot
// (RunLocks: in this process and across processes) and, before it lets go, deletes every key of its
// queue by key — then checks the slot holds none of them. A reshard holds the slot it moves the same way.

import { queueKey, slot } from '../keyspace/index.ts';
import { ownerOf, readShards, type ShardNode } from '../sandbox/cluster-topology.ts';
import type { ExplorerRuntime } from './runtime.ts';

export interface ClusterRunContext {
  slot: number;
  shards: ShardNode[];
  owner: ShardNode;
}

/** The lock name of a slot: runs of every queue on one slot take turns (a name may share a slot). */
export function slotLock(n: number): string {
  return `slot:${n}`;
}

/** Keys of `queue` the node owning `n` holds (a run's own, since runs on a slot take turns). */
export async function queueKeysOnSlot(runtime: ExplorerRuntime, queue: string, n: number): Promise<string[]> {
  const owner = ownerOf(await readShards(runtime.clusterAdmin), n);
  if (!owner) return [];
  const node = runtime.clusterAdminNode(owner.address);
  const prefix = queueKey(queue, 'pending').slice(0, -'pending'.length);
  const keys = (await node.call('CLUSTER', 'GETKEYSINSLOT', n, 1000)) as string[];
  return keys.filter((key) => key.startsWith(prefix));
}

/**
 * Runs `work` holding the slot of `queue`, with the cluster's layout read live; afterwards deletes every
 * key of the queue and answers how many outlived the clean-up (0 unless something is wrong).
 */
export async function withQueueSlot<T>(
  runtime: ExplorerRuntime,
  queue: string,
  work: (context: ClusterRunContext) => Promise<T>,
): Promise<T & { leftBehind: number }> {
  const n = slot(queueKey(queue, 'pending'));
  return runtime.locks.with(slotLock(n), async () => {
    try {
      const shards = await readShards(runtime.clusterAdmin);
      const owner = ownerOf(shards, n);
      if (!owner) throw new Error(`no node of the cluster serves slot ${n}`);
      const result = await work({ slot: n, shards, owner });
      return { ...result, leftBehind: await cleanUp(runtime, queue, n) };
    } catch (error) {
      await cleanUp(runtime, queue, n).catch(() => {});
      throw error;
    }
  });
}

async function cleanUp(runtime: ExplorerRuntime, queue: string, n: number): Promise<number> {
  const keys = await queueKeysOnSlot(runtime, queue, n);
  if (keys.length > 0) await runtime.clusterAdmin.del(...keys);
  return (await queueKeysOnSlot(runtime, queue, n)).length;
}
