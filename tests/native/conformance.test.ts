// The conformance suite: seeded random sequences of transitions (enqueue, schedule, claim, complete,
// retry, promote, reap, duplicates, stale tokens — conformance.ts's STEPS) run once through the scripted
// executor and once through the native module, each on its own fresh database. runSequence compares,
// after every step, the two replies and the two keyspaces key by key (type, fields, members, and scores
// within the step's window). A failure names its seed: CONFORMANCE_SEED=<seed> replays that sequence alone.

import { describe, it } from 'node:test';
import { installWireIdentity } from '../../server/connectors/install.ts';
import { runSequence } from '../../server/conformance/conformance.ts';
import { sequenceFor } from '../support/sequences.ts';
import { NativeExecutor } from '../../server/executors/native.ts';
import { ScriptedExecutor } from '../../server/executors/scripted.ts';
import { ConformanceTally } from '../support/conformance-tally.ts';
import { useNativeSandbox } from './support.ts';

const box = useNativeSandbox({ cluster: false });

const tally = new ConformanceTally('CONFORMANCE_SEED', 'tests/native/conformance.test.ts');
const SEEDS = tally.seeds;
/** Sequences run side by side, each on a pair of databases of its own (16 databases: 8 pairs). */
const LANES = 8;

describe('conformance: the scripted executor and the native module, step by step', () => {
  it(`agrees on ${SEEDS.length} seeded sequence(s): replies and keyspaces after every step`, async (t) => {
    const queue = [...SEEDS];

    const lane = async (index: number) => {
      const scripted = box.standalone(2 * index);
      const native = box.standalone(2 * index + 1);
      for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
        // Each sequence on fresh databases; both carry the identity, so the keyspaces compare whole.
        await Promise.all([scripted.flushdb(), native.flushdb()]);
        await Promise.all([installWireIdentity(scripted), installWireIdentity(native)]);
        const sequence = sequenceFor(seed);
        const results = await runSequence(
          sequence.steps,
          [
            { executor: new ScriptedExecutor(scripted), reader: scripted },
            { executor: new NativeExecutor(native), reader: native },
          ],
          { queue: sequence.queue, seed, onStep: (result) => result.differences.length === 0 },
        );
        tally.record(seed, sequence.queue, results);
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));

    // The sequences reached every branch of every transition, on both executors alike.
    tally.check(t, 'each compared on both executors');
  });
});
