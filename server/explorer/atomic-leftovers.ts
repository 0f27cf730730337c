// What a process that died mid-run leaves on the Valkey 9 cluster: a slot migration still in flight
// (the servers drive MIGRATESLOTS by themselves, so it goes on without its run), and the queue's keys
// on either end. Nothing but an atomic run uses that cluster, and every atomic run holds one turn, so in
// that turn every migration not finished is cancelled and every key of a queue removed; the site's own
// lock keys (`{sandbox}:…`) are not a queue's.

import type { Valkey } from 'iovalkey';
import { namespacePattern } from '../contract/keyspace/index.ts';
import { readShards } from '../sandbox/cluster-topology.ts';
import type { AtomicRuntime } from './atomic-runtime.ts';

/** The states after which a migration job does nothing more. */
const FINISHED = new Set(['success', 'failed', 'cancelled']);

/** How long a cancelled migration may take to say so. */
const CANCEL_SETTLE_MS = 5000;

/** The migration jobs `node` reports that have not finished: each an export or an import, and its state. */
async function unfinished(node: Valkey): Promise<Array<{ operation: string; state: string }>> {
  const jobs = (await node.call('CLUSTER', 'GETSLOTMIGRATIONS')) as unknown[][];
  return jobs
    .map((flat) => {
      const field = (name: string) => String(flat[flat.findIndex((f, i) => i % 2 === 0 && f === name) + 1]);
      return { operation: field('operation'), state: field('state') };
    })
    .filter((job) => !FINISHED.has(job.state));
}

/** The queue keys (`emq:…`) `node` holds, a batch at a time as SCAN finds them (they lie on many slots). */
export async function* queueKeyBatches(node: Valkey): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, keys] = (await node.call('SCAN', cursor, 'MATCH', namespacePattern(), 'COUNT', 1000)) as [
      string,
      string[],
    ];
    cursor = next;
    if (keys.length > 0) yield keys;
  } while (cursor !== '0');
}

/** Removes every queue key `node` holds, key by key; answers how many. */
async function removeQueueKeys(node: Valkey): Promise<number> {
  let removed = 0;
  for await (const keys of queueKeyBatches(node)) {
    const pipeline = node.pipeline();
    for (const key of keys) pipeline.unlink(key);
    for (const [error, gone] of (await pipeline.exec()) ?? []) if (!error) removed += Number(gone);
  }
  return removed;
}

/**
 * In the atomic runs' turn (`lock`, waited for `waitMs` at most): cancels every migration left in flight, waits until each node says
 * it has ended, and removes every queue key. Answers one line per thing done, for the log.
 */
export function clearAtomicLeftovers(
  runtime: AtomicRuntime,
  lock: string,
  waitMs?: number,
): Promise<string[]> {
  return runtime.locks.line.with(
    lock,
    async () => {
      const said: string[] = [];
      const shards = await readShards(runtime.clusterAdmin);
      const nodes = shards.map(({ address }) => ({ address, admin: runtime.clusterAdminNode(address) }));
      // Only the source cancels (the target answers "No migrations ongoing"); its import then fails on
      // its own ("Connection lost to source"). One that ended meanwhile answers the same: nothing to do.
      for (const { address, admin } of nodes) {
        const exports = (await unfinished(admin)).filter((job) => job.operation === 'EXPORT');
        if (exports.length === 0) continue;
        const cancelled = await admin.call('CLUSTER', 'CANCELSLOTMIGRATIONS').then(
          () => true,
          (error: Error) => {
            if (/No migrations ongoing/i.test(error.message)) return false;
            throw error;
          },
        );
        if (cancelled) {
          const states = exports.map((job) => job.state).join(', ');
          said.push(`${address}: cancelled the slot migration a dead run left in flight (${states})`);
        }
      }
      const deadline = Date.now() + CANCEL_SETTLE_MS;
      for (const { address, admin } of nodes) {
        while ((await unfinished(admin)).length > 0) {
          if (Date.now() > deadline) throw new Error(`${address} still migrates a slot after its cancel`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      for (const { address, admin } of nodes) {
        const removed = await removeQueueKeys(admin);
        if (removed > 0) said.push(`${address}: removed ${removed} queue key(s) a dead run left`);
      }
      return said;
    },
    waitMs,
  );
}
