// On a cluster-enabled node: every transition's declared keys for one queue share a slot, so each
// script runs; a call mixing two queues is refused with CROSSSLOT.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  claimCall,
  completeCall,
  enqueueCall,
  laneEnqueueCall,
  promoteCall,
  reapCall,
  retryCall,
  scheduleCall,
} from '../../server/executors/calls.ts';
import { ScriptedExecutor } from '../../server/executors/scripted.ts';
import type { Call } from '../../server/executors/transitions.ts';
import { mintJobId, slot } from '../../server/keyspace/index.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ native: false });

function everyCall(queue: string, id: string): Call[] {
  return [
    enqueueCall(queue, id, 'x'),
    claimCall(queue, 1000),
    completeCall(queue, id, 1),
    scheduleCall(queue, mintJobId(), 'x', 0),
    promoteCall(queue, 10),
    reapCall(queue, 10),
    retryCall(queue, mintJobId(), 1, { delayMs: 0, maxAttempts: 1, error: 'e' }),
    laneEnqueueCall(queue, 'GRP0000000000a', mintJobId(), 'x'),
  ];
}

describe('the scripts are single-slot by construction', () => {
  it('runs every transition of one queue on the cluster node', async () => {
    const executor = new ScriptedExecutor(box.cluster());
    for (const queue of ['orders', 'fills', 'emq', 'ça-va', 'a b c']) {
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
