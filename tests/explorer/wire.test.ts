// Every experiment's result carries the wire — each command its executors and connectors sent, in
// order, with the replies — and the server's own proof of it: the bytes it received on the connection
// equal the listed commands' RESP bytes, and its command count equals their number where no script ran
// and nothing was refused before running.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { explorerRuntime } from '../../server/explorer/runtime.ts';
import { ClusterBusyError, withOwnCluster } from '../../server/wire/cluster-wire.ts';
import { useApi } from '../support/api.ts';

const api = useApi();

interface Wire {
  wire: Array<{ line: string; reply: unknown }>;
  proof: { reached: number; listed: number; bytesReceived: number; bytesListed: number } | null;
}

/**
 * The bytes the server received are the listed commands', exactly. Its command count matches too when
 * no script ran (a script's own calls count) and nothing was refused before running (CROSSSLOT, MOVED).
 */
function assertProved(where: string, { wire, proof }: Wire, countsMatch = true) {
  assert.ok(proof, `${where}: a proof`);
  assert.equal(proof.listed, wire.length, where);
  assert.equal(proof.bytesReceived, proof.bytesListed, `${where}: the bytes the server received`);
  if (countsMatch) assert.equal(proof.reached, proof.listed, `${where}: the commands the server counted`);
}

const verbs = (wire: Wire['wire']) => wire.map(({ line }) => line.split(' ').slice(0, 2).join(' '));

describe('the wire of every experiment', () => {
  it('keys: the enqueue; after NOSCRIPT the admin loads the script and the EVALSHA goes again', async () => {
    // The admin loaded every script when the site set the sandbox up: a first run finds them there.
    const first = (await api.post('keys', { queue: 'orders' })).body.result;
    assert.deepEqual(
      verbs(first.wire).map((v: string) => v.split(' ')[0]),
      ['EVALSHA'],
    );
    // Scripts flushed behind the site's back: NOSCRIPT, loaded by the admin's connection (the
    // reader's account has no SCRIPT LOAD, so it is not on this wire), then the EVALSHA again.
    const admin = new Valkey(api.sandbox.standalone.url);
    await admin.call('SCRIPT', 'FLUSH');
    admin.disconnect();
    const flushed = (await api.post('keys', { queue: 'orders' })).body.result;
    assert.deepEqual(
      verbs(flushed.wire).map((v: string) => v.split(' ')[0]),
      ['EVALSHA', 'EVALSHA'],
    );
    assert.deepEqual(flushed.wire[0].reply, { error: 'NOSCRIPT No matching script.' });
    assertProved('keys', first, false);
    assertProved('keys after NOSCRIPT', flushed, false);
  });

  it('slot: every CLUSTER KEYSLOT and both claims, on a connection of the run’s own', async () => {
    const result = (await api.post('slot', { queue: 'orders', other: 'fills' })).body.result;
    const lines = result.wire.map(({ line }: { line: string }) => line);
    assert.ok(lines.includes('CLUSTER KEYSLOT {emq}:version'));
    const crossslot = result.wire.find(({ reply }: { reply: any }) => /^CROSSSLOT/.test(reply?.error ?? ''));
    assert.match(crossslot.line, /^EVALSHA [0-9a-f]{40} 3 emq:\{orders\}:pending emq:\{fills\}:active /);
    assertProved('slot', result, false);
  });

  it('layout: the setup, the call, and the same call on the cluster node', async () => {
    const result = (await api.post('layout', { verb: 'complete', queue: 'orders', id: 'JOB0Nb1VTbfnu4' }))
      .body.result;
    assert.deepEqual(
      result.standalone.setupWire.map(({ line }: { line: string }) => line.split(' ')[0]),
      ['EMQ.ENQUEUE', 'EMQ.CLAIM'],
    );
    assert.deepEqual(verbs(result.standalone.wire), ['EMQ.COMPLETE 3']);
    assertProved('layout standalone', result.standalone);
    assert.deepEqual(result.cluster.wire.at(-1).reply, {
      error: 'EMQWIRE expected a standalone server but cluster mode is enabled',
    });
    // The cluster client is told the call's slot, so it goes to the owner at once: no MOVED first.
    assert.equal(result.cluster.wire.length, 1, JSON.stringify(result.cluster.wire));
    assertProved('layout cluster', result.cluster, false);
  });

  it('reserve: each connector’s fence, the operator’s install and the native writes', async () => {
    const { steps } = (await api.post('reserve', {})).body.result;
    for (const step of steps) {
      const fence = step.commands.map((c: { command: string }) => c.command);
      const sent = step.wire.map(({ line }: { line: string }) => line);
      assert.deepEqual(
        sent.filter((line: string) => fence.includes(line)),
        fence,
        `${step.actor}: the fence's commands are on the wire, in order`,
      );
      assertProved(`${step.actor}: ${step.action}`, step);
    }
  });

  it('two executors: each step’s EVALSHA and EMQ.* call side by side, and what changed', async () => {
    const { steps } = (await api.post('two-executors', { steps: ['enqueue', 'claim', 'stale'] })).body.result;
    for (const step of steps) {
      assert.match(step.scripted.wire.at(-1).line, /^EVALSHA [0-9a-f]{40} /, step.step);
      assert.equal(step.native.wire[0].line.split(' ')[0], `EMQ.${step.transition.toUpperCase()}`);
      assertProved(`${step.step} scripted`, step.scripted, false);
      assertProved(`${step.step} native`, step.native);
    }
    const [enqueue, claim, stale] = steps;
    assert.deepEqual(
      enqueue.native.changes.map((c: { key: string; change: string }) => `${c.change} ${c.key}`),
      [`added emq:{orders}:job:${enqueue.args[0]}`, 'added emq:{orders}:pending'],
    );
    assert.ok(claim.native.changes.some((c: { key: string; change: string }) => c.change === 'removed'));
    assert.deepEqual(stale.native.changes, [], 'a stale token changes nothing');
    assert.match(stale.native.reply.error, /^EMQSTALE/);
  });
});

describe('run clients on the cluster', () => {
  it('at most 32 at once: 40 simultaneous slot runs all answer, the 8 past the bound after a wait', async () => {
    const runs = await Promise.all(
      Array.from({ length: 40 }, (_, i) => api.post('slot', { queue: `bound-${i}`, other: 'fills' })),
    );
    for (const { status, body } of runs) {
      assert.equal(status, 200, JSON.stringify(body));
      assertProved('slot', body.result, false);
    }
    // Each run client holds one connection per node: on any node, the explorer's connections are the
    // bound, plus the shared cluster client's and the runtime's own one per node.
    const node = new Valkey(api.sandbox.cluster!.url.split(',')[0]!);
    try {
      const list = String(await node.client('LIST'));
      const explorers = list.split('\n').filter((line) => / user=explorer /.test(line)).length;
      assert.ok(explorers >= 32 && explorers <= 32 + 3, `${explorers} explorer connections on one node`);
    } finally {
      node.disconnect();
    }
  });

  it('32 held at once run; the 33rd waits and, none coming back in 5 s, is told the sandbox is busy', async () => {
    const { cluster } = await explorerRuntime();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding = 0;
    let allHeld!: () => void;
    const held = new Promise<void>((resolve) => (allHeld = resolve));
    const runs = Array.from({ length: 32 }, () =>
      withOwnCluster(cluster, async (client) => {
        holding += 1;
        if (holding === 32) allHeld();
        await released;
        return client.status;
      }),
    );
    await held;
    await assert.rejects(
      withOwnCluster(cluster, async () => 'never'),
      (error: Error) =>
        error instanceof ClusterBusyError &&
        /every cluster client of the sandbox is in use/.test(error.message),
    );
    release();
    assert.deepEqual(new Set(await Promise.all(runs)), new Set(['ready']));
  });
});
