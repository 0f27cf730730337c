// The sandbox's three-node cluster: slots split as `valkey-cli --cluster create` splits them, every node
// in cluster_state:ok, no persistence and a memory cap; and a node SIGKILLed is restarted by its
// supervisor on its port with its node id and its slots, and serves again with no one stepping in.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SLOT_RANGES } from '../../server/contract/slot-ranges.ts';
import { waitClusterOk } from '../../server/sandbox/cluster.ts';
import { readShards } from '../../server/sandbox/cluster-topology.ts';
import { queueKey, slot } from '../../server/contract/keyspace/index.ts';
import { serverPid, useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ native: false });

describe('the sandbox cluster', () => {
  it('has three primaries holding 0–5460, 5461–10922 and 10923–16383, as CLUSTER SHARDS says on every node', async () => {
    const seeds = box.sandbox.cluster!.seeds;
    assert.equal(seeds.length, 3);
    for (const [i, seed] of seeds.entries()) {
      assert.ok(seed.port + 10_000 <= 55_535, `node ${i}: bus port ${seed.port + 10_000} in range`);
      const shards = await readShards(box.clusterNode(i));
      assert.deepEqual(
        shards.map((shard) => shard.slots),
        SLOT_RANGES.map(([start, end]) => [[start, end]]),
      );
      assert.deepEqual(
        shards.map((shard) => shard.address),
        seeds.map(({ host, port }) => `${host}:${port}`),
      );
      const info = String(await box.clusterNode(i).call('CLUSTER', 'INFO'));
      assert.match(info, /cluster_state:ok/);
      assert.match(info, /cluster_slots_assigned:16384/);
    }
  });

  it('persists nothing and caps memory on every node', async () => {
    for (const i of [0, 1, 2]) {
      const node = box.clusterNode(i);
      assert.deepEqual(await node.config('GET', 'save'), ['save', '']);
      assert.deepEqual(await node.config('GET', 'appendonly'), ['appendonly', 'no']);
      const [, maxmemory] = (await node.config('GET', 'maxmemory')) as [string, string];
      assert.ok(Number(maxmemory) > 0, 'a memory cap');
    }
  });

  it('restarts a SIGKILLed node with its node id and slots; the cluster client serves its slot again', async () => {
    const cluster = box.sandbox.cluster!;
    const victim = cluster.nodes[1]!;
    const before = await readShards(box.clusterNode(0));
    // A key on the victim's range, written through the cluster client.
    let queue = 'b';
    while (slot(queueKey(queue, 'pending')) < 5461 || slot(queueKey(queue, 'pending')) > 10922) queue += 'b';
    const onVictim = queueKey(queue, 'meta');
    const client = box.cluster();
    await client.hset(onVictim, 'paused', '0');

    const pid = serverPid(victim.port);
    process.kill(pid, 'SIGKILL');
    // The write waits through the restart (the client retries), with no step of ours in between.
    await client.hset(onVictim, 'paused', '1');
    assert.notEqual(serverPid(victim.port), pid, 'a new process');
    assert.equal(await client.hget(onVictim, 'paused'), '1');
    await waitClusterOk(cluster.seeds, cluster.admin);
    assert.deepEqual(await readShards(box.clusterNode(0)), before, 'same ids, addresses and slots');
    assert.deepEqual(await readShards(box.clusterNode(1)), before, 'the restarted node agrees');
  });
});
