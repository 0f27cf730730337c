// The route experiment over HTTP on the built site, against a three-node cluster this file owns and names
// to the site by one seed node only: what it
// reports is checked against the cluster itself (CLUSTER SHARDS, each node asked directly), and 50
// simultaneous runs on one queue name each see only their own job and leave nothing behind.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { queueKey, slot } from '../../server/contract/keyspace/index.ts';
import { ownerOf, readShards } from '../../server/sandbox/cluster-topology.ts';
import { waitClusterOk } from '../../server/sandbox/cluster.ts';
import { useExplorer } from '../support/explorer.ts';
import { serverPid } from '../support/sandbox.ts';

// One seed node in VALKEY_CLUSTER_URL: the site finds the other two from CLUSTER SHARDS.
const explorer = useExplorer({ EXPLORER_BURST: '1000', EXPLORER_RATE: '1000' }, { seeds: 1 });
const CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";
const CLUSTER_MODE = 'EMQWIRE expected a standalone server but cluster mode is enabled';

async function shards() {
  const admin = new Valkey(explorer.sandbox.cluster!.url.split(',')[0]!);
  try {
    return await readShards(admin);
  } finally {
    admin.disconnect();
  }
}

describe('route', () => {
  it('reports the slot, the nodes and the owner as CLUSTER SHARDS has them, and the exact MOVED', async () => {
    const live = await shards();
    for (const queue of ['orders', 'ça va', 'x', '🙂']) {
      const { status, body } = await explorer.post('route', { queue });
      assert.equal(status, 200, JSON.stringify(body));
      const result = body.result;
      const n = slot(queueKey(queue, 'pending'));
      assert.equal(result.slot, n);
      assert.equal(result.serverSlot, n);
      assert.deepEqual(
        result.nodes,
        live.map(({ address, slots }) => ({ address, slots })),
      );
      const owner = ownerOf(live, n)!.address;
      assert.equal(result.owner, owner, queue);
      assert.notEqual(result.moved.asked, owner);
      assert.deepEqual(result.moved.command, ['GET', queueKey(queue, 'pending')]);
      assert.equal(result.moved.reply, `MOVED ${n} ${owner}`);
      assert.equal(result.leftBehind, 0);
    }
  });

  it('an enqueue and a claim through the cluster client land every key on the owner', async () => {
    const { body } = await explorer.post('route', { queue: 'orders' });
    const { served, owner } = body.result;
    assert.equal(served.steps[0].reply, 1);
    assert.deepEqual(served.steps[1].reply.slice(0, 1), [served.jobId]);
    assert.deepEqual(
      served.keys.map((k: { key: string }) => k.key),
      [`emq:{orders}:job:${served.jobId}`, 'emq:{orders}:pending', 'emq:{orders}:active'],
    );
    assert.ok(served.keys.every((k: { storedOn: string }) => k.storedOn === owner));
    assert.equal(served.oneNode, true);
  });

  it('without braces the keys scatter over slots and nodes, and a script declaring them gets CROSSSLOT', async () => {
    const live = await shards();
    const { body } = await explorer.post('route', { queue: 'orders' });
    const { scattered } = body.result;
    assert.deepEqual(
      scattered.keys.map((k: { key: string }) => k.key),
      ['emq:orders:pending', 'emq:orders:active', 'emq:orders:job:'],
    );
    for (const placed of scattered.keys) {
      assert.equal(placed.slot, slot(placed.key));
      assert.equal(placed.owner, ownerOf(live, placed.slot)!.address);
    }
    assert.equal(scattered.nodeCount, 3, 'orders scatters over all three nodes');
    assert.equal(scattered.command[0], 'EVALSHA');
    assert.equal(scattered.reply, CROSSSLOT);
  });

  it('EMQ.ENQUEUE: MOVED from a non-owner, EMQWIRE from the owner, and nothing written', async () => {
    for (const queue of ['orders', 'emq']) {
      const { body } = await explorer.post('route', { queue });
      const { native, owner, slot: n } = body.result;
      assert.equal(native.command[0], 'EMQ.ENQUEUE');
      assert.notEqual(native.nonOwner.asked, owner);
      assert.equal(native.nonOwner.reply, `MOVED ${n} ${owner}`);
      assert.equal(native.owner.asked, owner);
      assert.equal(native.owner.reply, CLUSTER_MODE);
      assert.equal(native.keysBefore, 0);
      assert.equal(native.keysAfter, 0);
      assert.equal(native.slotKeysAfter, native.slotKeysBefore);
      assert.equal(native.written, false);
    }
  });

  it('says when the queue shares the reserve’s slot 9051 (the queue emq), and not otherwise', async () => {
    const emq = (await explorer.post('route', { queue: 'emq' })).body.result;
    assert.equal(emq.slot, 9051);
    assert.equal(emq.reserve.slot, 9051);
    assert.equal(emq.reserve.sharesSlot, true);
    assert.equal(emq.reserve.owner, emq.owner);
    const orders = (await explorer.post('route', { queue: 'orders' })).body.result;
    assert.equal(orders.reserve.sharesSlot, false);
  });

  it('refuses a name the admission check refuses, before any run', async () => {
    for (const queue of ['', 'a{b', 'a}b', 'a\u0000b']) {
      const { status, body } = await explorer.post('route', { queue });
      assert.equal(status, 400);
      assert.equal(body.code, 'BAD_INPUT');
      assert.equal(body.field, 'queue');
    }
  });

  it('50 simultaneous runs on one queue name: each claims its own job, and nothing outlives them', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () => explorer.post('route', { queue: 'shared' })),
    );
    const jobs = new Set<string>();
    for (const { status, body } of results) {
      assert.equal(status, 200, JSON.stringify(body));
      const { served, native, leftBehind } = body.result;
      // The claim popped exactly the job this run enqueued: no other run's job was in the queue.
      assert.equal(served.steps[1].reply[0], served.jobId);
      assert.equal(served.steps[1].reply[2], 1, 'a first attempt');
      assert.equal(native.keysBefore, 0, 'a clean queue at the start of every run');
      assert.equal(native.slotKeysBefore, 0);
      assert.equal(leftBehind, 0);
      jobs.add(served.jobId);
    }
    assert.equal(jobs.size, 50);
    assert.deepEqual(await explorer.allKeys(), []);
  });

  it('a node SIGKILLed mid-run comes back by itself, and no run gets a 5xx', async () => {
    const cluster = explorer.sandbox.cluster!;
    const queues = ['orders', 'emq', 'x', 'ça va', 'fills'];
    const runs = Array.from({ length: 20 }, (_, i) => explorer.post('route', { queue: queues[i % 5] }));
    // orders lives on the first node: kill it while the runs are on their way.
    await new Promise((resolve) => setTimeout(resolve, 30));
    process.kill(serverPid(cluster.seeds[0]!.port), 'SIGKILL');
    const results = await Promise.all(runs);
    for (const [i, { status, body }] of results.entries()) {
      assert.equal(status, 200, `run ${i}: ${JSON.stringify(body)}`);
      assert.equal(body.result.moved.reply, `MOVED ${body.result.slot} ${body.result.owner}`);
      assert.equal(body.result.served.oneNode, true);
      assert.equal(body.result.leftBehind, 0);
    }
    await waitClusterOk(cluster.seeds, cluster.admin);
    const after = await explorer.post('route', { queue: 'orders' });
    assert.equal(after.status, 200);
    assert.equal(after.body.result.native.owner.reply, CLUSTER_MODE);
  });
});
