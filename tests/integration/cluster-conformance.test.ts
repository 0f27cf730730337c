// The scripted executor through a cluster client (iovalkey's Cluster, routing each call to the node that
// owns the queue's slot) against the same executor on the standalone node: the 200 seeded conformance
// sequences, with the same reply after every step and the same keyspace — the cluster side read back
// from the owner node alone, which must hold every key of the queue.
// CLUSTER_CONFORMANCE_SEED=<seed> replays one sequence.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import { runSequence } from '../../server/conformance/conformance.ts';
import { QUEUES, sequenceFor } from '../support/sequences.ts';
import { ScriptedExecutor } from '../../server/executors/scripted.ts';
import { queueKey, slot } from '../../server/contract/keyspace/index.ts';
import { ownerOf, readShards } from '../../server/sandbox/cluster-topology.ts';
import { ConformanceTally } from '../support/conformance-tally.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ native: false });

const tally = new ConformanceTally(
  'CLUSTER_CONFORMANCE_SEED',
  'tests/integration/cluster-conformance.test.ts',
);
const SEEDS = tally.seeds;

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
        tally.record(seed, queue, results);
      }
    };
    await Promise.all(QUEUES.map((queue, i) => lane(queue, i)));

    tally.check(t, `on ${owners.size} owner node(s)`);
    if (tally.replay === null) assert.ok(owners.size >= 2, 'the queues live on more than one node');
  });
});
