// How a run uses the shared cluster. A cluster node has one keyspace (Valkey 8 allows no other; Valkey 9
// allows more only when cluster-databases is raised above its default of 1), and readers type exact
// queue names, so two runs on one queue would see each other's jobs: a run holds its queue's slot and,
// before it lets go, deletes every key of its queue. A reshard holds the slot it moves the same way.

import { once } from 'node:events';
import { setTimeout } from 'node:timers/promises';
import { queueSlot } from '../contract/keyspace/index.ts';
import type { ClusterHandle } from '../cluster/handle.ts';
import { deleteQueueKeys } from '../cluster/queue-keys.ts';
import { ownerOf, readShards, type ShardNode } from '../sandbox/cluster-topology.ts';
import { isRestarting } from '../catalogue/restarting.ts';
import { outsideRun, runDeadline, settledWithin } from '../run-deadline.ts';

export type ClusterRunContext = { slot: number; shards: ShardNode[]; owner: ShardNode };

/** The lock name of a slot: runs of every queue on one slot take turns (a name may share a slot). */
export const slotLock = (n: number): string => `slot:${n}`;

/** Waits until every node says cluster_state:ok (a restarted node takes a moment to rejoin). */
async function waitClusterHealthy(runtime: ClusterHandle, timeoutMs = 12_000): Promise<ShardNode[]> {
  for (const deadline = Date.now() + timeoutMs; ; await setTimeout(100)) {
    const problems = await runtime.stateProblems();
    const shards = problems.length > 0 ? null : await readShards(runtime.clusterAdmin).catch(restarting);
    if (shards) return shards;
    if (Date.now() > deadline) {
      // Every node said ok, but the slot map could not be read (a node still restarting): nothing to add.
      const why = problems.length > 0 ? ` (${problems.join('; ')})` : '';
      throw new Error(`CLUSTERDOWN the cluster did not come back in time${why}`);
    }
  }
}

/** Null for a node restarting (asked again), else the error. */
function restarting(error: unknown): null {
  if (isRestarting(error)) return null;
  throw error;
}

/** How long a clean-up owed by a run that missed its deadline may hold the slot's turn, per try. */
const OWED_CLEANUP_MS = 2000;
/** How many times it tries, a few seconds apart (a node frozen for a while answers later). */
const OWED_CLEANUP_TRIES = 20;

/**
 * Runs `work` holding the slot of `queue`, then deletes the queue's keys; answers how many outlived it.
 * After a node died mid-run (its supervisor restarts it) the run waits until every node says ok and
 * runs once more. One that misses its deadline (a node frozen under it) gives the turn back at once and
 * owes its clean-up, done later in a turn of its own.
 */
export async function withQueueSlot<T>(
  runtime: ClusterHandle,
  queue: string,
  work: (context: ClusterRunContext) => Promise<T>,
): Promise<T & { leftBehind: number }> {
  const n = queueSlot(queue);
  const run = runDeadline();
  // Once the deadline has passed, nothing of this run deletes a key: the turn may be another's by then.
  const inTurn = () => !run?.aborted;
  return runtime.locks.with(slotLock(n), async () => {
    const attempts = (async () => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          const shards =
            attempt === 1 ? await readShards(runtime.clusterAdmin) : await waitClusterHealthy(runtime);
          const owner = ownerOf(shards, n);
          if (!owner) throw new Error(`no node of the cluster serves slot ${n}`);
          const result = await work({ slot: n, shards, owner });
          return { ...result, leftBehind: await cleanUp(runtime, queue, n, inTurn, owner) };
        } catch (error) {
          if (!inTurn()) throw error;
          if (isRestarting(error)) await waitClusterHealthy(runtime, 6000).catch(() => {});
          await cleanUp(runtime, queue, n, inTurn).catch(() => {});
          if (attempt >= 2 || !isRestarting(error)) throw error;
          // No second attempt after the run's deadline: it would run behind the answer.
          run?.throwIfAborted();
        }
      }
    })();
    await Promise.race([attempts, ...(run ? [once(run, 'abort')] : [])]);
    if (!run?.aborted) return attempts;
    // Its turn is given back now; the clean-up it owes waits in this process's line behind it.
    outsideRun(() => void cleanUpOwed(runtime, queue, n));
    throw run.reason;
  });
}

// An owed clean-up: each try holds the turn at most OWED_CLEANUP_MS (a frozen node must not keep the
// slot from everyone again), and deletes nothing once it gave the turn up.
async function cleanUpOwed(runtime: ClusterHandle, queue: string, n: number) {
  for (let tryNo = 1; tryNo <= OWED_CLEANUP_TRIES; tryNo += 1) {
    let live = true;
    try {
      return await runtime.locks.with(slotLock(n), () =>
        settledWithin(
          OWED_CLEANUP_MS,
          () => new Error('late'),
          cleanUp(runtime, queue, n, () => live),
        ).finally(() => (live = false)),
      );
    } catch {
      await setTimeout(OWED_CLEANUP_MS);
    }
  }
}

/** Deletes the queue's keys from the slot's owner (read live unless known); answers how many are left. */
async function cleanUp(
  runtime: ClusterHandle,
  queue: string,
  n: number,
  inTurn: () => boolean,
  known?: ShardNode,
): Promise<number> {
  const owner = known ?? ownerOf(await readShards(runtime.clusterAdmin), n);
  if (!owner) return 0;
  return deleteQueueKeys(runtime.clusterAdminNode(owner.address), queue, n, { inTurn });
}
