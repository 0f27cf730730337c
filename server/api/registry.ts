// The server's half of the one table of experiments (server/contract/experiment-table.ts), keyed by the
// same names: how each parses its input (refusing anything else with a clear error) before it touches
// the sandbox, runs, and says what a run of it holds. A row whose run answers anything but the contract's
// result for that name, or a name missing or extra, fails the type check.

import type { ExperimentName, ResultOf } from '../contract/experiment-table.ts';
import { parseConsoleInput, runConsole } from '../experiments/console/console.ts';
import { parseKeysInput, runKeys } from '../experiments/keys.ts';
import { parseLayoutInput, runLayout } from '../experiments/layout.ts';
import { parseReserveInput, runReserve } from '../experiments/reserve.ts';
import { parseReshardInput, runReshard } from '../experiments/reshard.ts';
import { parseRouteInput, runRoute } from '../experiments/route.ts';
import type { ExplorerRuntime } from '../explorer/runtime.ts';
import type { RunKind } from '../catalogue/run-timeout.ts';
import { parseSlotInput, runSlot } from '../experiments/slot.ts';
import { parseTwoExecutorsInput, runTwoExecutors } from '../experiments/two-executors.ts';

export interface Experiment<I = unknown, R = unknown> {
  parse(body: unknown): I;
  run(runtime: ExplorerRuntime, input: I): Promise<R>;
  /** What a run of it holds, so that its TIMEOUT says what happened to that (run-timeout.ts). */
  kind(input: I): RunKind;
}

function experiment<I, R>(definition: Experiment<I, R>): Experiment<unknown, R> {
  return definition as Experiment<unknown, R>;
}

export const EXPERIMENTS = {
  keys: experiment({ parse: parseKeysInput, run: runKeys, kind: () => 'leased' }),
  slot: experiment({ parse: parseSlotInput, run: runSlot, kind: () => 'reads' }),
  layout: experiment({ parse: parseLayoutInput, run: runLayout, kind: () => 'leased' }),
  route: experiment({ parse: parseRouteInput, run: runRoute, kind: () => 'queue' }),
  reshard: experiment({ parse: parseReshardInput, run: runReshard, kind: () => 'reshard' }),
  reserve: experiment({
    parse: parseReserveInput,
    run: (runtime) => runReserve(runtime),
    kind: () => 'leased',
  }),
  'two-executors': experiment({ parse: parseTwoExecutorsInput, run: runTwoExecutors, kind: () => 'leased' }),
  console: experiment({
    parse: parseConsoleInput,
    run: runConsole,
    kind: (input) => (input.node === 'cluster' ? 'reads' : 'leased'),
  }),
} satisfies { [N in ExperimentName]: Experiment<unknown, ResultOf<N>> };
