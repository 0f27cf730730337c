// What a process that died mid-run leaves on the Valkey 9 cluster: a slot migration in flight (the
// servers drive MIGRATESLOTS by themselves) and the queue's keys on either end. Only atomic runs use that
// cluster, each in one turn, so in that turn every unfinished migration is cancelled and every queue key
// removed (the site's own `{sandbox}:…` keys are not a queue's).

import { readShards } from '../sandbox/cluster-topology.ts';
import type { ClusterHandle } from './handle.ts';
import { deleteEveryQueueKey } from './queue-keys.ts';
import { cancelMigrations } from './slot-migrations.ts';

/** In the atomic runs' turn `lock`: answers a line per thing done, for the log. */
export function clearLeftovers(handle: ClusterHandle, lock: string, waitMs?: number): Promise<string[]> {
  return handle.locks.line.with(
    lock,
    async () => {
      const addresses = (await readShards(handle.clusterAdmin)).map(({ address }) => address);
      const said = await cancelMigrations(addresses, handle.clusterAdminNode);
      for (const address of addresses) {
        const removed = await deleteEveryQueueKey(handle.clusterAdminNode(address));
        if (removed > 0) said.push(`${address}: removed ${removed} queue key(s) a dead run left`);
      }
      return said;
    },
    waitMs,
  );
}
