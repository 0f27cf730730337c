// two executors: one sequence of transitions through the scripted executor and the native module side
// by side, each on a keyspace of its own, with both replies and both keyspaces after every step.

import { installWireIdentity } from '../connectors/install.ts';
import { runSequence, STEPS, type Step } from '../conformance/conformance.ts';
import { NativeExecutor } from '../executors/native.ts';
import { ScriptedExecutor } from '../executors/scripted.ts';
import { fields, InputError, list, oneOf, queueName } from './input.ts';
import { LIMITS } from './browser-safe/limits.ts';
import type { ExplorerRuntime } from './runtime.ts';

export const DEFAULT_STEPS: Step[] = [
  'enqueue',
  'enqueue',
  'duplicate',
  'claim',
  'stale',
  'complete',
  'claim',
  'retry',
  'schedule',
  'promote',
  'reap',
];

export interface TwoExecutorsInput {
  steps: Step[];
  queue: string;
}

export function parseTwoExecutorsInput(body: unknown): TwoExecutorsInput {
  const input = fields(body ?? {}, ['steps', 'queue']);
  const steps = list(input, 'steps', LIMITS.steps, (value, where) => oneOf({ [where]: value }, where, STEPS));
  const queue = queueName(input, 'queue', 'orders');
  if (steps?.length === 0) throw new InputError('steps', 'needs at least one step');
  return { steps: steps ?? DEFAULT_STEPS, queue };
}

export async function runTwoExecutors(runtime: ExplorerRuntime, input: TwoExecutorsInput) {
  if (!runtime.native()) {
    return {
      available: false,
      message: 'the native module is not loaded on this sandbox, so there is no second executor',
    };
  }
  return runtime.pool.with(2, async ([scripted, native]) => {
    // Both keyspaces carry the native identity, so they can be compared byte for byte.
    await installWireIdentity(scripted!.client);
    await installWireIdentity(native!.client);
    const results = await runSequence(
      input.steps,
      [
        { executor: new ScriptedExecutor(scripted!.client), reader: scripted!.client },
        { executor: new NativeExecutor(native!.client), reader: native!.client },
      ],
      { queue: input.queue, seed: Date.now() },
    );
    return {
      available: true,
      queue: input.queue,
      steps: results.map(({ step, call, replies, keyspaces, windowMs, differences }) => ({
        step,
        transition: call.transition,
        keys: call.keys,
        args: call.args,
        scripted: { reply: replies[0], keyspace: keyspaces[0] },
        native: { reply: replies[1], keyspace: keyspaces[1] },
        windowMs,
        same: differences.length === 0,
        differences,
      })),
      same: results.every((result) => result.differences.length === 0),
    };
  });
}
