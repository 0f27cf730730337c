// Each experiment over HTTP, as the island calls it, against real servers: what it shows must be what
// the servers did.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { slot } from '../../server/contract/keyspace/index.ts';
import { LIMITS } from '../../server/contract/limits.ts';
import { useExplorer } from '../support/explorer.ts';

// The runs here are not about the rate limit (tests/front/ is): lifted, as in the other explorer tests.
const explorer = useExplorer({ EXPLORER_BURST: '1000', EXPLORER_RATE: '1000' });

describe('keys', () => {
  it('shows every key of the queue in segments, and the live keyspace holds exactly the grammar’s keys', async () => {
    const { status, body } = await explorer.post('keys', { queue: 'ça va', id: 'JOB0Nb1VTbfnu4' });
    assert.equal(status, 200);
    const result = body.result;
    assert.equal(result.accepted, true);
    const pending = result.keys.find((key: { type: string }) => key.type === 'pending');
    assert.deepEqual(
      pending.segments.map((s: { part: string; text: string }) => [s.part, s.text]),
      [
        ['prefix', 'emq:'],
        ['open', '{'],
        ['queue', 'ça va'],
        ['close', '}:'],
        ['type', 'pending'],
      ],
    );
    assert.equal(pending.segments[2].hex, 'c3 a7 61 20 76 61');
    assert.equal(pending.slot, slot('emq:{ça va}:pending'));
    assert.deepEqual(
      result.live.map((entry: { key: string }) => entry.key),
      ['emq:{ça va}:job:JOB0Nb1VTbfnu4', 'emq:{ça va}:pending'],
    );
    assert.equal(result.reserve.slot, 9051);
    // The row base is a prefix the scripts derive rows from, shown apart, never listed as a key.
    assert.ok(!result.keys.some((key: { key: string }) => key.key.endsWith(':job:')));
    assert.equal(result.rowBase.key, 'emq:{ça va}:job:');
    // The wire: what the enqueue sent, proved by the server's own byte count.
    assert.match(
      result.wire.at(-1).line,
      /^EVALSHA [0-9a-f]{40} 2 "emq:\{\\xc3\\xa7a va\}:job:JOB0Nb1VTbfnu4"/,
    );
    assert.equal(result.proof.bytesReceived, result.proof.bytesListed);
  });

  for (const [queue, code, offset] of [
    ['', 'EMPTY_QUEUE', 0],
    ['or{ders', 'BRACE', 2],
    ['orders}', 'BRACE', 6],
    ['or\u0000ders', 'NUL', 2],
  ] as const) {
    it(`refuses ${JSON.stringify(queue)} at the host, and the server counts no command reaching it`, async () => {
      const { status, body } = await explorer.post('keys', { queue });
      assert.equal(status, 200);
      assert.equal(body.result.accepted, false);
      assert.equal(body.result.refusal.code, code);
      assert.equal(body.result.refusal.offset, offset);
      assert.deepEqual(body.result.wire, []);
      assert.deepEqual(body.result.proof, { reached: 0, listed: 0, bytesReceived: 0, bytesListed: 0 });
    });
  }
});

describe('slot', () => {
  it('computes the slot and the cluster node agrees; mixing two queues is refused with CROSSSLOT', async () => {
    const { body } = await explorer.post('slot', { queue: 'orders', other: 'fills' });
    const result = body.result;
    assert.equal(result.key.slot, 105);
    assert.equal(result.key.serverSlot, 105);
    assert.equal(result.reserve.serverSlot, 9051);
    assert.ok(result.queueSlots.every((entry: { slot: number }) => entry.slot === 105));
    assert.deepEqual(result.singleQueue.reply, null);
    assert.equal(result.mixedQueues.error, "CROSSSLOT Keys in request don't hash to the same slot");
    assert.deepEqual(result.mixedQueues.slots, [105, 4165, 105]);
  });

  it('takes any key, braces anywhere', async () => {
    const cluster = new Valkey(explorer.sandbox.cluster!.url.split(',')[0]!);
    for (const key of ['foo{}{bar}', 'foo{{bar}}zap', '{emq}:version', 'plain', '{', '}{x}']) {
      const { body } = await explorer.post('slot', { key });
      assert.equal(body.result.key.slot, await cluster.call('CLUSTER', 'KEYSLOT', key), key);
      assert.equal(body.result.key.agree, true);
    }
    cluster.disconnect();
  });
});

describe('native layout check', () => {
  it('accepts the exact call and refuses one changed byte with EMQKEY, writing nothing', async () => {
    const id = 'JOB0Nb1VTbfnu4';
    const exact = await explorer.post('layout', { verb: 'enqueue', queue: 'orders', id });
    assert.equal(exact.body.result.standalone.accepted, true);
    assert.equal(exact.body.result.standalone.reply, 1);
    assert.equal(
      exact.body.result.cluster.error,
      'EMQWIRE expected a standalone server but cluster mode is enabled',
    );

    const keys = [...exact.body.result.expectedKeys];
    keys[1] = keys[1].replace('orders', 'ordres');
    const edited = await explorer.post('layout', { verb: 'enqueue', queue: 'orders', id, keys });
    const refused = edited.body.result.standalone;
    assert.equal(refused.accepted, false);
    assert.equal(refused.errorClass, 'EMQKEY');
    assert.equal(refused.position, 2);
    assert.equal(refused.offset, 8);
    assert.equal(refused.keyspaceUnchanged, true);
    assert.deepEqual(
      refused.wire.map((command: { line: string }) => command.line.split(' ')[0]),
      ['EMQ.ENQUEUE'],
    );
    assert.equal(refused.proof.bytesReceived, refused.proof.bytesListed);
    // The cluster column runs the reader's edited call too: routing answers first (two slots).
    assert.match(edited.body.result.cluster.error, /^CROSSSLOT /);
  });

  it('lets a key outside the grammar reach the module, which refuses it at its first byte', async () => {
    const id = 'JOB0Nb1VTbfnu4';
    const keys = [`xmq:{orders}:job:${id}`, 'emq:{orders}:pending'];
    const { status, body } = await explorer.post('layout', { verb: 'enqueue', queue: 'orders', id, keys });
    assert.equal(status, 200);
    const refused = body.result.standalone;
    assert.equal(refused.errorClass, 'EMQKEY', refused.error);
    assert.equal(refused.position, 1);
    assert.equal(refused.offset, 0);
    assert.equal(refused.keyspaceUnchanged, true);
    // One slot (the hashtag is still orders), so on the cluster node the layout answers before the mode.
    assert.equal(body.result.cluster.errorClass, 'EMQKEY');
  });

  it('refuses an empty queue name for every verb', async () => {
    for (const verb of ['enqueue', 'schedule', 'claim', 'complete', 'retry', 'promote', 'reap']) {
      const exact = await explorer.post('layout', { verb });
      const keys = exact.body.result.expectedKeys.map((key: string) => key.replace('{orders}', '{}'));
      const { body } = await explorer.post('layout', { verb, id: exact.body.result.id, keys });
      assert.match(body.result.standalone.error, /^EMQKEY key 1 has an empty queue name at byte 5/, verb);
      assert.equal(body.result.standalone.keyspaceUnchanged, true);
    }
  });
});

describe('the reserve', () => {
  it('tells the whole story in order', async () => {
    const { body } = await explorer.post('reserve', {});
    const steps = body.result.steps;
    assert.deepEqual(
      steps.map((s: { keyspace: string; actor: string; outcome: string; identity: string | null }) => [
        s.keyspace,
        s.actor,
        s.outcome,
        s.identity,
      ]),
      [
        ['A', 'wire 4 connector', 'ok', 'echomq:4.0.0'],
        ['A', 'native write', 'refused', 'echomq:4.0.0'],
        ['B', 'wire 6 connector', 'refused', null],
        ['B', 'operator', 'ok', 'echomq:6.0.0'],
        ['B', 'wire 6 connector', 'ok', 'echomq:6.0.0'],
        ['B', 'native write', 'ok', 'echomq:6.0.0'],
        ['B', 'wire 4 connector', 'refused', 'echomq:6.0.0'],
      ],
    );
    assert.deepEqual(
      steps[0].commands.map((c: { command: string }) => c.command),
      ['GET {emq}:version', 'SET {emq}:version echomq:4.0.0 NX', 'GET {emq}:version'],
    );
    assert.equal(
      steps[1].message,
      "EMQWIRE expected wire identity 'echomq:6.0.0' at '{emq}:version' but found 'echomq:4.0.0'",
    );
    assert.match(steps[2].message, /not installed/);
  });
});

describe('two executors', () => {
  it('runs one sequence through both and finds the same keys with the same contents after each step', async () => {
    const { body } = await explorer.post('two-executors', {});
    assert.ok(body.result, JSON.stringify(body));
    const result = body.result;
    assert.equal(
      result.same,
      true,
      JSON.stringify(result.steps.map((s: { differences: string[] }) => s.differences)),
    );
    const stale = result.steps.find((s: { step: string }) => s.step === 'stale');
    assert.match(stale.scripted.reply.error, /^EMQSTALE /);
    assert.deepEqual(stale.scripted.reply, stale.native.reply);
  });
});

describe('isolation', () => {
  it('leaves no run’s keyspace behind', async () => {
    assert.deepEqual(await explorer.allKeys(), []);
  });
});

describe('the byte caps of typed fields, at the cap and one past', () => {
  const cases: Array<{
    experiment: string;
    field: string;
    cap: number;
    body: (value: string) => object;
    run?: false;
  }> = [
    { experiment: 'keys', field: 'queue', cap: LIMITS.queueBytes, body: (queue) => ({ queue }) },
    { experiment: 'keys', field: 'id', cap: LIMITS.idBytes, body: (id) => ({ queue: 'orders', id }) },
    // Past its length, the layout's id is read as a branded id: refused for its form, not its size.
    {
      experiment: 'layout',
      field: 'id',
      cap: LIMITS.idBytes,
      body: (id) => ({ verb: 'claim', id }),
      run: false,
    },
    { experiment: 'slot', field: 'key', cap: LIMITS.keyBytes, body: (key) => ({ key }) },
  ];
  for (const { experiment, field, cap, body, run = true } of cases) {
    it(`${experiment}.${field}: ${cap} bytes reach the run, ${cap + 1} are refused saying the cap`, async () => {
      // Two-byte characters, so the cap is counted in bytes, not characters.
      const atCap = 'é'.repeat(cap / 2);
      const at = await explorer.post(experiment, body(atCap));
      if (run) assert.equal(at.status, 200, JSON.stringify(at.body));
      else assert.match(at.body.detail, /expected a branded job id/);
      const past = await explorer.post(experiment, body(atCap + 'x'));
      assert.equal(past.status, 400);
      assert.equal(past.body.code, 'BAD_INPUT');
      assert.match(
        past.body.detail,
        new RegExp(`${field}.*${cap + 1} bytes long; at most ${cap} are allowed`),
      );
    });
  }
});
