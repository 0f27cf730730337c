// What a process that died mid-run leaves on the Valkey 9 cluster: a slot migration in flight (the
// servers drive MIGRATESLOTS by themselves) and the queue's keys on either end. Only atomic runs use that
// cluster, each in one turn, so in that turn every unfinished migration is cancelled and every queue key
// removed (the site's own `{sandbox}:…` keys are not a queue's).

import { readShards } from '../sandbox/cluster-topology.ts';
import type { ClusterHandle } from './handle.ts';
import { deleteEveryQueueKey } from './queue-keys.ts';
import { unfinishedMigrations } from './slot-migrations.ts';

/** How long a cancelled migration may take to say so. */
const CANCEL_SETTLE_MS = 5000;

/** In the atomic runs' turn `lock`: answers a line per thing done, for the log. */
export function clearLeftovers(handle: ClusterHandle, lock: string, waitMs?: number): Promise<string[]> {
  return handle.locks.line.with(
    lock,
    async () => {
      const said: string[] = [];
      const shards = await readShards(handle.clusterAdmin);
      const nodes = shards.map(({ address }) => ({ address, admin: handle.clusterAdminNode(address) }));
      // Only the source cancels (the target answers "No migrations ongoing"); its import then fails on
      // its own ("Connection lost to source"). One that ended meanwhile answers the same: nothing to do.
      for (const { address, admin } of nodes) {
        const exports = (await unfinishedMigrations(admin)).filter((job) => job.operation === 'EXPORT');
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
        while ((await unfinishedMigrations(admin)).length > 0) {
          if (Date.now() > deadline) throw new Error(`${address} still migrates a slot after its cancel`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      for (const { address, admin } of nodes) {
        const removed = await deleteEveryQueueKey(admin);
        if (removed > 0) said.push(`${address}: removed ${removed} queue key(s) a dead run left`);
      }
      return said;
    },
    waitMs,
  );
}
