// The reshard experiment over HTTP on the built site, against a three-node cluster this file owns: the
// queue's slot moves to another node step by step (each reply checked), a client meets ASK mid-way, every
// key moves together and none is lost, a claim is served by the new owner, and the slot comes back. Other
// readers' runs stay right while reshards are under way; reshards take turns.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { SLOT_RANGES } from '../../server/sandbox/cluster.ts';
import { readShards } from '../../server/sandbox/cluster-topology.ts';
import { useExplorer } from '../support/explorer.ts';

const explorer = useExplorer({ EXPLORER_BURST: '1000', EXPLORER_RATE: '1000' });

async function liveRanges() {
  const admin = new Valkey(explorer.sandbox.cluster!.url.split(',')[1]!);
  try {
    return (await readShards(admin)).map((shard) => shard.slots);
  } finally {
    admin.disconnect();
  }
}

describe('reshard', () => {
  it('moves the queue’s slot with every key, shows the ASK, serves a claim on the new owner, and puts it back', async () => {
    const { status, body } = await explorer.post('reshard', { queue: 'orders' });
    assert.equal(status, 200, JSON.stringify(body));
    const r = body.result;
    assert.equal(r.slot, 105);
    assert.notEqual(r.from, r.to);
    assert.deepEqual(
      r.steps.map((step: { command: string[] }) => step.command.slice(0, 2).concat(step.command[3] ?? '')),
      [
        ['CLUSTER', 'SETSLOT', 'IMPORTING'],
        ['CLUSTER', 'SETSLOT', 'MIGRATING'],
        ['CLUSTER', 'GETKEYSINSLOT', '100'],
        ['MIGRATE', '127.0.0.1', ''],
        ['CLUSTER', 'GETKEYSINSLOT', '100'],
        ['CLUSTER', 'SETSLOT', 'NODE'],
        ['CLUSTER', 'SETSLOT', 'NODE'],
        ['CLUSTER', 'SETSLOT', 'NODE'],
      ],
    );
    for (const step of r.steps) if (step.command[1] !== 'GETKEYSINSLOT') assert.equal(step.reply, 'OK');
    assert.equal(r.steps[0].node, r.to, 'IMPORTING on the target');
    assert.equal(r.steps[1].node, r.from, 'MIGRATING on the source');
    assert.ok(!JSON.stringify(r).includes(explorer.sandbox.cluster!.admin!.password), 'no password shown');
    // Mid-migration: ASK from the source, MOVED from the target unless the client says ASKING.
    assert.equal(r.ask.source.reply, `ASK 105 ${r.to}`);
    assert.equal(r.ask.targetWithoutAsking.reply, `MOVED 105 ${r.from}`);
    assert.deepEqual(r.ask.targetAfterAsking.reply, r.jobs);
    // Every key of the queue moved, together, none left behind.
    assert.deepEqual(
      r.moved.keys,
      [...r.jobs.map((id: string) => `emq:{orders}:job:${id}`), 'emq:{orders}:pending'].sort(),
    );
    assert.deepEqual(r.moved.onTarget, r.moved.keys);
    assert.equal(r.moved.leftOnSource, 0);
    assert.equal(r.moved.together, true);
    // The oldest job is claimed on the new owner.
    assert.equal(r.claim.reply[0], r.jobs[0]);
    assert.equal(r.claim.activeOn, r.to);
    // And back: the same steps the other way, the slot owned by its first node again.
    assert.equal(r.restore.back, true);
    assert.equal(r.restore.owner, r.from);
    assert.equal(r.restore.steps.length, 8);
    assert.equal(r.leftBehind, 0);
    assert.deepEqual(
      await liveRanges(),
      SLOT_RANGES.map(([a, b]) => [[a, b]]),
    );
    assert.deepEqual(await explorer.allKeys(), []);
  });

  it('other readers’ runs stay right while reshards are under way, and reshards take turns', async () => {
    const queues = ['orders', 'emq', 'x', 'fills', 'ça va'];
    const work = [
      ...['orders', 'x', 'emq'].map((queue) => explorer.post('reshard', { queue })),
      ...Array.from({ length: 30 }, (_, i) => explorer.post('route', { queue: queues[i % 5] })),
      ...Array.from({ length: 5 }, () => explorer.post('slot', { queue: 'orders', other: 'fills' })),
    ];
    const results = await Promise.all(work);
    for (const [i, { status, body }] of results.entries()) {
      assert.equal(status, 200, `run ${i}: ${JSON.stringify(body)}`);
      const r = body.result;
      if (i < 3) {
        assert.equal(r.moved.together, true);
        assert.equal(r.restore.back, true);
      } else if (i < 33) {
        assert.equal(r.moved.reply, `MOVED ${r.slot} ${r.owner}`);
        assert.equal(r.served.steps[1].reply[0], r.served.jobId, 'the run claimed its own job');
        assert.ok(r.served.keys.every((k: { storedOn: string }) => k.storedOn === r.owner));
        assert.equal(r.native.written, false);
        assert.equal(r.leftBehind, 0);
      } else {
        assert.equal(r.singleQueue.reply, null, 'an empty queue: nothing of a reshard’s jobs seen');
        assert.equal(r.mixedQueues.error, "CROSSSLOT Keys in request don't hash to the same slot");
      }
    }
    assert.deepEqual(
      await liveRanges(),
      SLOT_RANGES.map(([a, b]) => [[a, b]]),
    );
    assert.deepEqual(await explorer.allKeys(), []);
  });
});
