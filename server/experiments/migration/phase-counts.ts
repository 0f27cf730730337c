// What each phase counts, per node: how many keys of the queue the node holds (read from the node
// itself, CLUSTER COUNTKEYSINSLOT, never worked out from the plan), and the phase's replies by kind. Both
// modes give every phase these two, so the page draws a queue of thousands leaving one node and arriving
// on the other, and a call served again and again before one redirection as exactly that.

import {
  REPLY_KINDS,
  replyKind,
  type MigrationProbe,
  type ReplyCounts,
  type ReplyKind,
} from '../../contract/experiments/migration.ts';

/** What counts a slot's keys on one node (an admin connection's `call`). */
interface Counter {
  call(command: string, ...args: Array<string | number>): Promise<unknown>;
}

/**
 * Each node's count of keys in `slot`, by address. A node counts the keys it holds whether or not it
 * owns the slot, so an importing target's arrivals count too; during a run the slot holds the queue's
 * keys alone (its turn on the slot, and the site's own keys refused there).
 */
export async function keysByNode(
  nodes: ReadonlyArray<{ address: string }>,
  admin: (address: string) => Counter,
  slot: number,
): Promise<Record<string, number>> {
  const counts = await Promise.all(
    nodes.map(async ({ address }) => Number(await admin(address).call('CLUSTER', 'COUNTKEYSINSLOT', slot))),
  );
  return Object.fromEntries(nodes.map(({ address }, i) => [address, counts[i]!]));
}

const none = (): ReplyCounts =>
  Object.fromEntries(REPLY_KINDS.map((kind) => [kind, 0])) as Record<ReplyKind, number>;

/**
 * The probes' replies by kind, per node (every node listed). A probe sent again and again (atomic mode,
 * `served` times alike, then the reply that ended it) counts each of its replies.
 */
export function repliesByNode(
  nodes: ReadonlyArray<{ address: string }>,
  probes: readonly MigrationProbe[],
): Record<string, ReplyCounts> {
  const counts: Record<string, ReplyCounts> = Object.fromEntries(
    nodes.map(({ address }) => [address, none()]),
  );
  for (const probe of probes) {
    const node = (counts[probe.node] ??= none());
    if (probe.served === undefined) {
      node[replyKind(probe.reply)] += 1;
      continue;
    }
    // served alike `served` times (the first reply's kind), then the reply that ended it, if it redirected
    node[replyKind(probe.firstReply ?? probe.reply)] += probe.served;
    const last = replyKind(probe.reply);
    if (last === 'redirected' || last === 'retry') node[last] += 1;
  }
  return counts;
}
