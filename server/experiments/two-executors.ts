// two executors: one sequence of transitions through the scripted executor and the native module side
// by side, each on a keyspace of its own, with both replies and both keyspaces after every step.

import { installWireIdentity } from '../connectors/install.ts';
import { runSequence } from '../conformance/conformance.ts';
import { DEFAULT_STEPS, STEPS, type Step } from '../contract/experiments/two-executors.ts';
import { NativeExecutor } from '../executors/native.ts';
import { ScriptedExecutor } from '../executors/scripted.ts';
import { fields, InputError, list, oneOf, queueName } from '../input/fields.ts';
import { LIMITS } from '../contract/limits.ts';
import { dumpInServer } from '../inspect/keyspace-dump.ts';
import { diffKeyspaces } from '../inspect/keyspace-diff.ts';
import { RecordingExecutor } from '../wire/recording-executor.ts';
import type { Grant } from '../explorer/grants.ts';

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

export async function runTwoExecutors(grant: Grant<'lease' | 'native'>, input: TwoExecutorsInput) {
  if (!grant.native) {
    return {
      available: false as const,
      message: 'the native module is not loaded on this sandbox, so there is no second executor',
    };
  }
  return grant.lease(2, async ([scripted, native]) => {
    // Both keyspaces carry the native identity, so they can be compared byte for byte.
    await installWireIdentity(scripted!.client);
    await installWireIdentity(native!.client);
    const before = await Promise.all([dumpInServer(scripted!.client), dumpInServer(native!.client)]);
    // Each executor keeps the wire of every step it runs: the commands and the server's proof of them.
    const executors = [
      new RecordingExecutor(new ScriptedExecutor(scripted!.client), scripted!.client),
      new RecordingExecutor(new NativeExecutor(native!.client), native!.client),
    ] as const;
    const results = await runSequence(
      input.steps,
      [
        { executor: executors[0], reader: scripted!.client },
        { executor: executors[1], reader: native!.client },
      ],
      { queue: input.queue, seed: Date.now() },
    );
    const side = (i: 0 | 1, n: number) => {
      const { reply, keyspace } = { reply: results[n]!.replies[i], keyspace: results[n]!.keyspaces[i] };
      const previous = n === 0 ? before[i]! : results[n - 1]!.keyspaces[i];
      return {
        reply,
        keyspace,
        changes: diffKeyspaces(previous, keyspace),
        ...executors[i].calls[n]!,
      };
    };
    return {
      available: true as const,
      queue: input.queue,
      steps: results.map(({ step, call, windowMs, differences }, n) => ({
        step,
        transition: call.transition,
        keys: call.keys,
        args: call.args,
        scripted: side(0, n),
        native: side(1, n),
        windowMs,
        same: differences.length === 0,
        differences,
      })),
      same: results.every((result) => result.differences.length === 0),
    };
  });
}
