// The server's half of the one table of experiments (server/contract/experiment-table.ts), keyed by the
// same names: how each parses its input (refusing anything else with a clear error) before it touches
// the sandbox, what its run is given (server/explorer/grants.ts), how it runs, and what a run of it
// holds. A row whose run answers anything but the contract's result for that name, a name missing or
// extra, or a run that needs more than its row grants, fails the type check.

import type { ExperimentName, ResultOf } from '../contract/experiment-table.ts';
import { parseConsoleInput, runConsole } from '../experiments/console/console.ts';
import { parseKeysInput, runKeys } from '../experiments/keys.ts';
import { parseLayoutInput, runLayout } from '../experiments/layout.ts';
import { parseReserveInput, runReserve } from '../experiments/reserve.ts';
import { parseReshardInput, runReshard } from '../experiments/reshard.ts';
import { parseRouteInput, runRoute } from '../experiments/route.ts';
import type { CapabilityName, Grant } from '../explorer/grants.ts';
import type { RunKind } from '../catalogue/run-timeout.ts';
import { parseSlotInput, runSlot } from '../experiments/slot.ts';
import { parseTwoExecutorsInput, runTwoExecutors } from '../experiments/two-executors.ts';

export interface Experiment<I = unknown, R = unknown, N extends CapabilityName = CapabilityName> {
  parse(body: unknown): I;
  /** What its run is given: what it reads, and the admin only for a slot migration. */
  grant: readonly N[];
  // A property, not a method, so that a run needing more than its row names is a type error.
  run: (grant: NoInfer<Grant<N>>, input: I) => Promise<R>;
  /** What a run of it holds, so that its TIMEOUT says what happened to that (run-timeout.ts). */
  kind(input: I): RunKind;
}

/**
 * A row: how its input is parsed, what its run is given, how it runs, and what a run holds — one kind, or
 * one read from the input.
 */
function experiment<I, R, N extends CapabilityName>(
  parse: (body: unknown) => I,
  grant: readonly N[],
  run: (grant: NoInfer<Grant<N>>, input: I) => Promise<R>,
  kind: RunKind | ((input: I) => RunKind),
): Experiment<unknown, R> {
  const row: Experiment<I, R, N> = {
    parse,
    grant,
    run,
    kind: typeof kind === 'function' ? kind : () => kind,
  };
  return row as unknown as Experiment<unknown, R>;
}

export const EXPERIMENTS = {
  keys: experiment(parseKeysInput, ['lease'], runKeys, 'leased'),
  slot: experiment(parseSlotInput, ['cluster', 'slotTurn'], runSlot, 'reads'),
  layout: experiment(parseLayoutInput, ['lease', 'native', 'cluster'], runLayout, 'leased'),
  route: experiment(parseRouteInput, ['queueTurn', 'cluster', 'clusterNode', 'nodeReads'], runRoute, 'queue'),
  reshard: experiment(
    parseReshardInput,
    ['migration', 'queueTurn', 'cluster', 'clusterNode'],
    runReshard,
    'reshard',
  ),
  reserve: experiment(parseReserveInput, ['lease', 'native'], (grant) => runReserve(grant), 'leased'),
  'two-executors': experiment(parseTwoExecutorsInput, ['lease', 'native'], runTwoExecutors, 'leased'),
  console: experiment(parseConsoleInput, ['lease', 'native', 'cluster', 'slotTurn'], runConsole, (input) =>
    input.node === 'cluster' ? 'reads' : 'leased',
  ),
} satisfies { [N in ExperimentName]: Experiment<unknown, ResultOf<N>> };
