// The console on the shared cluster reads only what is the reader's own. A cluster node has one
// keyspace for every reader, so a console run takes the same per-slot turn as every other cluster run
// (RunLocks, slotLock) for each slot its lines name a key in, and reads while it holds them: no other
// run is writing those queues, and each run before it deleted its keys when it let go. A line that
// names no key but walks a node's whole keyspace (SCAN, DBSIZE) is refused there (its row in
// server/contract/console/commands.ts runs on "standalone" only): it would list other readers' queues
// and the site's own lock keys, and confined to the reader's queues it would always come back empty
// (the console writes nothing on the cluster, and no one else's keys are there while it holds the
// turn), so the standalone node, a keyspace of the run's own, is where SCAN teaches.

import { slot } from '../../contract/keyspace/index.ts';
import { InputError } from '../../input/fields.ts';
import type { Grant } from '../../explorer/grants.ts';
import type { Planned, Refused } from '../../contract/console/allow-list.ts';
import { CONSOLE_CAPS } from '../../contract/limits.ts';
import { CONSOLE_TURN_WAIT_MS } from '../../settings/bounds.ts';

/** The slots whose turn a cluster run takes: those of every key a line reads or names, ascending. */
export function turnSlots(plans: ReadonlyArray<Planned | Refused>): number[] {
  const slots = new Set<number>();
  for (const planned of plans) {
    // CLUSTER KEYSLOT only hashes its argument; a write other than EMQ.* is refused on the cluster.
    if (!planned.ok || planned.command === 'CLUSTER KEYSLOT') continue;
    if (planned.writes && !planned.command.startsWith('EMQ.')) continue;
    for (const key of planned.keys) slots.add(slot(key));
  }
  return [...slots].sort((a, b) => a - b);
}

/** Refuses a cluster run whose lines name keys in more slots than one run may hold at once. */
export function checkTurnSlots(plans: ReadonlyArray<Planned | Refused>): void {
  const slots = turnSlots(plans);
  if (slots.length > CONSOLE_CAPS.clusterSlots)
    throw new InputError(
      'lines',
      `names keys in ${slots.length} slots; on "cluster" a run takes its turn on at most ${CONSOLE_CAPS.clusterSlots} slots (every key of one queue shares its queue's slot)`,
    );
}

/**
 * Runs `work` holding the turn of every slot in `slots`, taken in ascending order (every run that
 * holds more than one takes them so, and the others hold one: no two runs wait on each other).
 */
export function withSlotTurns<T>(
  grant: Grant<'slotTurn'>,
  slots: readonly number[],
  work: () => Promise<T>,
): Promise<T> {
  const [first, ...rest] = slots;
  if (first === undefined) return work();
  return grant.slotTurn(first, () => withSlotTurns(grant, rest, work), CONSOLE_TURN_WAIT_MS);
}
