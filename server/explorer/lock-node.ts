// An atomic run needs more than the Valkey 9.1 cluster: it takes its reader's share (reader-share.ts)
// on the Valkey 8 cluster, where every lock and line of the site lives in one slot. With the node that
// serves that slot frozen, atomic runs failed (503 TIMEOUT) while the atomic half said "up"; the status
// asks that node too.

import type { Cluster, Valkey } from 'iovalkey';
import { slot } from '../contract/keyspace/index.ts';
import { answersPing } from '../cluster/answers-ping.ts';
import { RunLocks } from '../cluster/run-lock.ts';

/** The slot of the site's own locks and lines on the Valkey 8 cluster (all share one hashtag). */
export const LOCK_SLOT = slot(RunLocks.key('any'));

/**
 * What is wrong with the node holding the site's locks, as a line for the status, or null when it
 * answers a PING within HEALTH_PING_MS. `admin` is the Valkey 8 cluster as its admin; `node` dials one.
 */
export async function lockNodeProblem(
  admin: Cluster,
  node: (address: string) => Valkey,
): Promise<string | null> {
  const address = (admin.slots[LOCK_SLOT] as string[] | undefined)?.[0];
  const what = `the Valkey 8 node holding the site's locks (slot ${LOCK_SLOT}${address ? `, ${address}` : ''})`;
  if (!address) return `no node is known to serve ${what}`;
  return (await answersPing(node(address)))
    ? null
    : `${what} does not answer, and every atomic run takes its turn there`;
}
