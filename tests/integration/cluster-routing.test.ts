// Where a queue lives, on the three-node cluster: for 500 seeded generated queue names, the owner we
// report (our slot, the ranges CLUSTER SHARDS gives) is the node that serves a GET of the queue's pending
// key without redirection, and every other node answers MOVED <slot> <owner> — word for word.
// ROUTING_SEED=<n> runs another set of names.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queueKey, slot } from '../../server/contract/keyspace/index.ts';
import { ownerOf, readShards } from '../../server/sandbox/cluster-topology.ts';
import { seededRandom } from '../../server/seeded-random.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ native: false });
const NAMES = 500;
/** Name characters: anything the admission check allows (no braces, no NUL), multi-byte ones too. */
const ALPHABET = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/ @#$%'];
const WIDE = ['é', 'ß', '中', '🙂', 'ñ', '\u0001', '\u007f'];

function generateNames(seed: number): string[] {
  const next = seededRandom(seed);
  const names = new Set<string>();
  while (names.size < NAMES) {
    const length = 1 + Math.floor(next() * 24);
    let name = '';
    for (let i = 0; i < length; i += 1) {
      name +=
        next() < 0.1
          ? WIDE[Math.floor(next() * WIDE.length)]
          : ALPHABET[Math.floor(next() * ALPHABET.length)];
    }
    names.add(name);
  }
  return [...names];
}

describe('routing on the three-node cluster', () => {
  it(`the reported owner of ${NAMES} generated queues serves them; every other node answers MOVED to it`, async () => {
    const seed = Number(process.env.ROUTING_SEED ?? 9_051);
    const names = generateNames(seed);
    const shards = await readShards(box.clusterNode(0));
    const nodes = shards.map((_, i) => box.clusterNode(i));
    const keys = names.map((name) => queueKey(name, 'pending'));
    const owners = keys.map((key) => ownerOf(shards, slot(key))!.address);

    const perNode = await Promise.all(
      nodes.map(async (node) => {
        const pipeline = node.pipeline();
        for (const key of keys) pipeline.get(key);
        return (await pipeline.exec())!;
      }),
    );
    const served = new Map<string, number>();
    keys.forEach((key, k) => {
      shards.forEach((shard, n) => {
        const [error, value] = perNode[n]![k]!;
        const where = `seed ${seed}, ${JSON.stringify(names[k])} on ${shard.address}`;
        if (shard.address === owners[k]) {
          assert.equal(error, null, `${where}: the owner serves it`);
          assert.equal(value, null);
          served.set(shard.address, (served.get(shard.address) ?? 0) + 1);
        } else {
          assert.equal(error?.message, `MOVED ${slot(key)} ${owners[k]}`, where);
        }
      });
    });
    // The names spread over every node, so each node is seen as owner and as non-owner.
    assert.equal(served.size, 3, JSON.stringify([...served]));
  });
});
