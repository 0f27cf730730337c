// The console on the shared cluster reads only what is the reader's own. A cluster node has one
// keyspace for every reader, so a console run takes the same per-slot turn as every other cluster run
// (RunLocks, slotLock) for each slot its lines name a key in, and reads while it holds them: no other
// run is writing those queues, and each run before it deleted its keys when it let go. A line that
// names no key but walks a node's whole keyspace (SCAN, DBSIZE) is refused there: it would list other
// readers' queues and the site's own lock keys, and confined to the reader's queues it would always
// come back empty (the console writes nothing on the cluster, and no one else's keys are there while
// it holds the turn), so the standalone node, a keyspace of the run's own, is where SCAN teaches.

import { slot } from '../../contract/keyspace/index.ts';
import { slotLock } from '../../explorer/cluster-run.ts';
import { InputError } from '../../input/fields.ts';
import type { ExplorerRuntime } from '../../explorer/runtime.ts';
import { notAllowedMessage, type Planned, type Refused } from '../../contract/console/allow-list.ts';
import { CONSOLE_CAPS } from '../../contract/limits.ts';
import { CONSOLE_TURN_WAIT_MS } from '../../settings/bounds.ts';

const WALKS: Record<string, string> = {
  SCAN: 'it walks a node’s whole keyspace, which on "cluster" holds other readers’ queues and the site’s own keys; name your queue’s keys (HGETALL emq:{q}:job:<id>, EXISTS emq:{q}:pending), or SCAN on "standalone", a keyspace of your own',
  DBSIZE:
    'it counts every reader’s keys on a node of the shared cluster; run it on "standalone", a keyspace of your own',
};

/** The refusal of a line that would read beyond the reader's own keys on the cluster, or null. */
export function walksSharedKeyspace(planned: Planned): Refused | null {
  const why = Object.hasOwn(WALKS, planned.command) ? WALKS[planned.command] : undefined;
  if (!why) return null;
  return {
    ok: false,
    code: 'NOT_ALLOWED',
    command: planned.command,
    message: notAllowedMessage(planned.command, why),
  };
}

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
  runtime: ExplorerRuntime,
  slots: readonly number[],
  work: () => Promise<T>,
): Promise<T> {
  const [first, ...rest] = slots;
  if (first === undefined) return work();
  return runtime.locks.with(slotLock(first), () => withSlotTurns(runtime, rest, work), CONSOLE_TURN_WAIT_MS);
}
