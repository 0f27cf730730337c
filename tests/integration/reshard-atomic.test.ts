// The reshard experiment's atomic mode on its own Valkey 9.1 cluster (trafikey loaded, opted in): the
// reader's queue, filled with thousands of jobs, moves by one CLUSTER MIGRATESLOTS while the four probes
// hit the source — each served, some many times, then MOVED to the target, never ASK or TRYAGAIN — the
// migration's states are shown, every key arrives, the slot comes back and the queue is gone after.
// Where Valkey 9.1 is absent or still being built, the mode answers a 503 that says so.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { atomicRuntime, atomicStatus, closeAtomicRuntime } from '../../server/experiments/atomic-runtime.ts';
import { failed } from '../../server/experiments/http.ts';
import { runAtomicReshard } from '../../server/experiments/reshard-atomic.ts';
import { boundedTeardown } from '../support/teardown.ts';
import { valkey9ForTests } from '../support/valkey9.ts';

const { build, skip } = await valkey9ForTests();

describe('reshard, atomic mode, on Valkey 9.1', { skip }, () => {
  after(() => boundedTeardown(closeAtomicRuntime));

  it('moves the slot whole while the probes are served, then MOVED; every key arrives; it comes back', async () => {
    const runtime = await atomicRuntime();
    assert.equal(runtime.version, build!.version);
    const r = await runAtomicReshard(runtime, { queue: 'orders' }, 20_000);
    assert.equal(r.mode, 'atomic');
    assert.equal(r.server, `Valkey ${build!.version}`);
    assert.equal(r.slot, 105);
    assert.notEqual(r.from, r.to);
    assert.deepEqual(r.command.slice(0, 5), ['CLUSTER', 'MIGRATESLOTS', 'SLOTSRANGE', '105', '105']);
    assert.deepEqual(
      r.phases.map((phase) => phase.name),
      ['before', 'moving', 'after'],
    );
    const [before, moving, afterwards] = r.phases;
    // Before: the source serves all four; the EMQ.* call reaches the module, which refuses cluster mode.
    assert.equal(before!.owner, r.from);
    assert.equal((before!.probes[0]!.reply as string[]).length, 1, 'a moved key is read');
    assert.ok(Array.isArray(before!.probes[1]!.reply), 'the claim is served');
    assert.equal(before!.probes[2]!.reply, 1, 'the enqueue is served');
    assert.equal(
      before!.probes[3]!.reply,
      'EMQWIRE expected a standalone server but cluster mode is enabled',
    );
    // While moving: each probe served at least once by the source, then MOVED to the target — no ASK, no TRYAGAIN.
    for (const probe of moving!.probes) {
      assert.equal(probe.node, r.from);
      assert.ok(probe.served! >= 1, `${probe.label} served during the move`);
      assert.equal(probe.reply, `MOVED 105 ${r.to}`, probe.label);
      assert.doesNotMatch(String(probe.firstReply), /^(ASK|TRYAGAIN|MOVED)\b/);
    }
    // The states CLUSTER GETSLOTMIGRATIONS went through, ending in success on both ends.
    const exportStates = r.migrations.filter((m) => m.operation === 'EXPORT').map((m) => m.state);
    assert.equal(exportStates.at(-1), 'success', exportStates.join(' → '));
    assert.ok(r.migrations.some((m) => m.operation === 'IMPORT' && m.node === r.to));
    // Every key arrived; none left on the source; the target now serves the probes.
    assert.ok(r.moved.before > 20_000);
    assert.equal(r.moved.after, r.moved.before);
    assert.equal(r.moved.leftOnSource, 0);
    assert.equal(r.moved.together, true);
    assert.equal(afterwards!.owner, r.to);
    assert.ok(Array.isArray(afterwards!.probes[1]!.reply), 'the claim is served by the new owner');
    assert.equal(afterwards!.probes[2]!.reply, 0, 'the enqueue is a duplicate there: the row moved');
    // Put back, and nothing of the queue left.
    assert.equal(r.restore.back, true);
    assert.equal(r.restore.owner, r.from);
    assert.equal(r.leftBehind, 0);
    console.log(
      `# atomic move of ${r.moved.before} keys: ${r.moveMs} ms; served before MOVED: ${moving!.probes.map((p) => `${p.label} ${p.served}`).join(', ')}; back in ${r.restore.moveMs} ms; states: ${r.migrations.map((m) => `${m.operation}:${m.state}@${m.atMs}`).join(' ')}`,
    );
  });
});

describe('reshard, atomic mode, without Valkey 9.1', () => {
  const root = mkdtempSync(join(tmpdir(), 'emq-valkey9-absent-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('answers 503 VALKEY9_UNAVAILABLE saying why when the build is absent', async () => {
    const env = { VALKEY9_HOME: join(root, 'missing') };
    let error: unknown;
    try {
      await atomicRuntime(env);
    } catch (caught) {
      error = caught;
    }
    const answer = failed('reshard', error);
    assert.equal(answer.status, 503);
    assert.deepEqual(answer.body, {
      error: {
        code: 'VALKEY9_UNAVAILABLE',
        message: `Valkey 9.1 is not available: it is not built (no ${env.VALKEY9_HOME}; scripts/valkey9.sh builds it)`,
      },
    });
    assert.equal((await atomicStatus(env)).state, 'absent');
  });

  it('answers 503 VALKEY9_BUILDING, retry after 30 s, while it is being built', async () => {
    const builder = spawn('sleep', ['30']);
    try {
      writeFileSync(join(root, 'state'), `building ${builder.pid}\n`);
      const env = { VALKEY9_HOME: root };
      let error: unknown;
      try {
        await atomicRuntime(env);
      } catch (caught) {
        error = caught;
      }
      const answer = failed('reshard', error);
      assert.equal(answer.status, 503);
      assert.equal((answer.body as { error: { code: string } }).error.code, 'VALKEY9_BUILDING');
      assert.equal(answer.headers?.['retry-after'], '30');
      assert.deepEqual(await atomicStatus(env), { state: 'building', message: 'Valkey 9.1 is being built' });
    } finally {
      builder.kill();
      await closeAtomicRuntime();
    }
  });
});
