// The scripted executor through a cluster client (iovalkey's Cluster, routing each call to the node that
// owns the queue's slot) against the same executor on the standalone node: the 200 seeded conformance
// sequences, with the same reply after every step and the same keyspace — the cluster side read back
// from the owner node alone, which must hold every key of the queue.
// CLUSTER_CONFORMANCE_SEED=<seed> replays one sequence.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import { runSequence } from '../../server/conformance/conformance.ts';
import {
  BASE_SEED,
  BRANCHES,
  outcome,
  QUEUES,
  SEQUENCES,
  sequenceFor,
} from '../../server/conformance/sequences.ts';
import { ScriptedExecutor } from '../../server/executors/scripted.ts';
import { queueKey, slot } from '../../server/keyspace/index.ts';
import { ownerOf, readShards } from '../../server/sandbox/cluster-topology.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ native: false });

const REPLAY = process.env.CLUSTER_CONFORMANCE_SEED ? Number(process.env.CLUSTER_CONFORMANCE_SEED) : null;
const SEEDS = REPLAY === null ? Array.from({ length: SEQUENCES }, (_, i) => BASE_SEED + i) : [REPLAY];

/** A SCAN pattern matching exactly the keys of `queue` (glob characters in the name escaped). */
function queuePattern(queue: string): string {
  return `${queueKey(queue, 'pending')
    .slice(0, -'pending'.length)
    .replace(/[*?[\]\\]/g, '\\$&')}*`;
}

describe('conformance on the three-node cluster: scripted through a cluster client vs standalone', () => {
  it(`agrees on ${SEEDS.length} seeded sequence(s): replies and keyspaces after every step`, async (t) => {
    const cluster = box.cluster();
    const shards = await readShards(box.clusterNode(0));
    const addresses = shards.map((shard) => shard.address);
    const owners = new Set<string>();
    const seen = new Map<string, number>();
    const failures: string[] = [];
    let steps = 0;

    // One lane per queue name, so no two sequences share a queue's keys on the cluster at once.
    const lane = async (queue: string, index: number) => {
      const standalone = box.standalone(index);
      const owner = ownerOf(shards, slot(queueKey(queue, 'pending')))!;
      owners.add(owner.address);
      const ownerNode: Valkey = box.clusterNode(addresses.indexOf(owner.address));
      const match = queuePattern(queue);
      for (const seed of SEEDS.filter((s) => sequenceFor(s).queue === queue)) {
        await standalone.flushdb();
        const [, left] = (await ownerNode.scan('0', 'MATCH', match, 'COUNT', 1000)) as [string, string[]];
        if (left.length > 0) await ownerNode.del(...left);
        const sequence = sequenceFor(seed);
        const results = await runSequence(
          sequence.steps,
          [
            { executor: new ScriptedExecutor(standalone), reader: standalone },
            { executor: new ScriptedExecutor(cluster), reader: ownerNode, match },
          ],
          { queue, seed, onStep: (result) => result.differences.length === 0 },
        );
        steps += results.length;
        for (const result of results) seen.set(outcome(result), (seen.get(outcome(result)) ?? 0) + 1);
        const bad = results.findIndex((result) => result.differences.length > 0);
        if (bad >= 0) {
          const result = results[bad]!;
          failures.push(
            `seed ${seed} (queue ${JSON.stringify(queue)}), step ${bad + 1}: ${result.step} ` +
              `${JSON.stringify(result.call)}\n  ${result.differences.join('\n  ')}\n  replay: ` +
              `CLUSTER_CONFORMANCE_SEED=${seed} node --test tests/integration/cluster-conformance.test.ts`,
          );
        }
      }
    };
    await Promise.all(QUEUES.map((queue, i) => lane(queue, i)));

    assert.deepEqual(failures, [], failures.join('\n'));
    t.diagnostic(`${SEEDS.length} sequences, ${steps} steps, on ${owners.size} owner node(s)`);
    if (REPLAY !== null) return;
    assert.equal(
      steps,
      SEEDS.reduce((sum, seed) => sum + sequenceFor(seed).steps.length, 0),
    );
    assert.ok(owners.size >= 2, 'the queues live on more than one node');
    for (const branch of BRANCHES) {
      assert.ok((seen.get(branch) ?? 0) > 0, `no step reached ${branch}: ${JSON.stringify([...seen])}`);
    }
  });
});
