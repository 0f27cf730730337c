// On the three-node cluster, through a cluster client that routes each call to the queue's node: every
// transition's declared keys for one queue share a slot, so each script runs wherever the queue lives;
// a call mixing two queues is refused with CROSSSLOT.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callFor } from '../../server/contract/calls.ts';
import { ScriptedExecutor } from '../../server/executors/scripted.ts';
import type { Call } from '../../server/contract/transitions.ts';
import { mintJobId, slot } from '../../server/contract/keyspace/index.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ native: false });

function everyCall(queue: string, id: string): Call[] {
  return [
    callFor('enqueue', queue, { id, payload: 'x' }),
    callFor('claim', queue, { lease_ms: 1000 }),
    callFor('complete', queue, { id, token: 1 }),
    callFor('schedule', queue, { id: mintJobId(), payload: 'x', run_at_ms: 0 }),
    callFor('promote', queue, { batch: 10 }),
    callFor('reap', queue, { batch: 10 }),
    callFor('retry', queue, { id: mintJobId(), token: 1, delay_ms: 0, max_attempts: 1, error: 'e' }),
    callFor('laneEnqueue', queue, { id: mintJobId(), payload: 'x', group: 'GRP0000000000a' }),
  ];
}

describe('the scripts are single-slot by construction', () => {
  it('runs every transition of one queue on the node that owns it', async () => {
    const executor = new ScriptedExecutor(box.cluster());
    // x lives on the third node, orders on the first, emq on the second.
    for (const queue of ['orders', 'fills', 'emq', 'ça-va', 'a b c', 'x']) {
      for (const call of everyCall(queue, mintJobId())) {
        assert.equal(
          new Set(call.keys.map((key) => slot(key))).size,
          1,
          `${call.transition} keys share a slot`,
        );
        await assert.doesNotReject(executor.run(call), `${call.transition} on ${queue}`);
      }
    }
  });

  it('refuses a call whose keys span two queues with CROSSSLOT', async () => {
    const executor = new ScriptedExecutor(box.cluster());
    for (const transition of everyCall('orders', mintJobId())) {
      const other = everyCall('fills', mintJobId()).find(
        (call) => call.transition === transition.transition,
      )!;
      const mixed: Call = { ...transition, keys: [transition.keys[0]!, ...other.keys.slice(1)] };
      await assert.rejects(executor.run(mixed), {
        name: 'WireError',
        message: "CROSSSLOT Keys in request don't hash to the same slot",
      });
    }
  });
});
