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
import { atomicRuntime, atomicStatus, closeAtomicRuntime } from '../../server/explorer/atomic-runtime.ts';
import { failed } from '../../server/api/api.ts';
import { runAtomicReshard } from '../../server/experiments/migration/atomic-mode.ts';
import { atomicGrantOf } from '../../server/explorer/grants.ts';
import { Valkey9UnavailableError } from '../../server/sandbox/valkey9-build.ts';
import { boundedTeardown } from '../support/teardown.ts';
import { valkey9ForTests } from '../support/valkey9.ts';
import { assertTimeline, ATOMIC_PHASES } from '../support/migration-timeline.ts';
import { replyKind } from '../../server/contract/experiments/migration.ts';

const { build, skip } = await valkey9ForTests();
const CLUSTER_MODE = 'EMQWIRE expected a standalone server but cluster mode is enabled';

describe('reshard, atomic mode, on Valkey 9.1', { skip }, () => {
  after(() => boundedTeardown(closeAtomicRuntime));

  it('moves the slot whole while the probes are served, then MOVED; every key arrives; it comes back', async () => {
    const runtime = await atomicRuntime();
    assert.equal(runtime.version, build!.version);
    const r = await runAtomicReshard(atomicGrantOf(runtime), { queue: 'orders', size: 20_000 });
    assert.equal(r.mode, 'atomic');
    assertTimeline(r);
    assert.equal(r.moveMs, r.atomic!.moveMs);
    assert.equal(r.jobCount, 20_000);
    assert.equal(r.server, build!.version);
    assert.equal(r.slot, 105);
    assert.notEqual(r.source, r.target);
    assert.deepEqual(
      r.phases.map((phase) => phase.name),
      ATOMIC_PHASES,
    );
    const [stable, moving, owner, back] = r.phases;
    // Stable: the owner serves the read, the claim and the module's enqueue (which refuses cluster mode).
    assert.equal(stable!.owner, r.source);
    assert.ok(Array.isArray(stable!.probes[0]!.reply), 'the row is read');
    assert.ok(Array.isArray(stable!.probes[1]!.reply), 'the claim is served');
    assert.deepEqual(stable!.probes[2]!.reply, { error: CLUSTER_MODE });
    // While moving: one command, then each probe served by the source, then MOVED — no ASK, no TRYAGAIN.
    assert.deepEqual(moving!.steps[0]!.command.slice(0, 5), [
      'CLUSTER',
      'MIGRATESLOTS',
      'SLOTSRANGE',
      '105',
      '105',
    ]);
    assert.equal(moving!.steps[0]!.reply, 'OK');
    for (const probe of moving!.probes) {
      assert.equal(probe.node, r.source);
      assert.ok(probe.served! >= 1, `${probe.label} served during the move`);
      assert.deepEqual(probe.reply, { error: `MOVED 105 ${r.target}` }, probe.label);
      assert.doesNotMatch(JSON.stringify(probe.firstReply), /"(ASK|TRYAGAIN|MOVED)\b/);
    }
    assert.equal(moving!.probes[2]!.firstReply, 1, 'the enqueue, new the first time');
    assert.deepEqual(moving!.probes[3]!.firstReply, { error: CLUSTER_MODE });
    // The cluster client: served by the source, then one MOVED followed to the target, which serves it.
    const lines = r.client.wire.map((entry) => `${entry.node} ${JSON.stringify(entry.reply)}`);
    assert.equal(r.client.wire[0]!.node, r.source, lines.join('\n'));
    assert.ok(Array.isArray(r.client.wire[0]!.reply), lines.join('\n'));
    const movedAt = r.client.wire.findIndex((entry) => JSON.stringify(entry.reply).includes('MOVED 105'));
    assert.ok(movedAt > 0, lines.join('\n'));
    assert.equal(r.client.wire[movedAt + 1]!.node, r.target, lines.join('\n'));
    assert.ok(!lines.some((line) => /ASK|TRYAGAIN/.test(line)), lines.join('\n'));
    // The worker, against the server: served by the source until the hand-over, then one MOVED, then
    // served by the target; never a retry, never given up.
    const worker = r.worker;
    const claims = worker.claims.map((c) => `${c.atMs} ${c.node} ${JSON.stringify(c.reply)}`).join('\n');
    const redirections = worker.claims.filter((c) => replyKind(c.reply) !== 'served');
    assert.equal(redirections.length, 1, claims);
    assert.equal((redirections[0]!.reply as { error: string }).error, `MOVED 105 ${r.target}`, claims);
    const at = worker.claims.indexOf(redirections[0]!);
    assert.ok(at > 0, claims);
    assert.ok(
      worker.claims.slice(0, at).every((c) => c.node === r.source),
      claims,
    );
    assert.ok(worker.claims.slice(at + 1).length >= 1, claims);
    assert.ok(
      worker.claims.slice(at + 1).every((c) => c.node === r.target),
      claims,
    );
    assert.ok(
      worker.claims.some((c) => c.atMs > 0 && c.atMs < r.moveMs && c.node === r.source),
      claims,
    );
    assert.equal(worker.gaveUp, false);
    assert.ok(worker.longestWaitMs < r.moveMs, `${worker.longestWaitMs} ms without a claim`);
    // The states CLUSTER GETSLOTMIGRATIONS went through, ending in success on both ends.
    const figures = r.atomic!;
    const exportStates = figures.states.filter((m) => m.operation === 'EXPORT').map((m) => m.state);
    assert.equal(exportStates.at(-1), 'success', exportStates.join(' → '));
    assert.ok(figures.states.some((m) => m.operation === 'IMPORT' && m.node === r.target));
    // Every key arrived; none left on the source; the new owner serves, the former one redirects.
    assert.equal(figures.jobCount, 20_000);
    assert.ok(figures.keys.before > 20_000);
    assert.equal(figures.keys.after, figures.keys.expected);
    assert.equal(figures.keys.leftOnSource, 0);
    assert.equal(figures.keys.together, true);
    assert.equal(owner!.owner, r.target);
    assert.ok(Array.isArray(owner!.probes[0]!.reply), 'the claim is served by the new owner');
    assert.deepEqual(owner!.probes[1]!.reply, { error: `MOVED 105 ${r.target}` });
    // Put back, every node agreeing, nothing of the queue left.
    assert.equal(back!.owner, r.source);
    assert.equal(r.clean, true);
    assert.equal(r.leftBehind, 0);
    console.log(
      `# atomic move of ${figures.keys.before} keys: ${figures.moveMs} ms; served before MOVED: ${moving!.probes.map((p) => p.served).join(', ')}; back in ${figures.backMs} ms; states: ${figures.states.map((m) => `${m.operation}:${m.state}@${m.atMs}`).join(' ')}`,
    );
  });
});

describe('reshard, atomic mode, without Valkey 9.1', () => {
  const root = mkdtempSync(join(tmpdir(), 'emq-valkey9-absent-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  /** The API's answer to a reshard whose Valkey 9 cluster, asked for with `env`, refused. */
  async function reshardAnswerWith(env: NodeJS.ProcessEnv) {
    let error: unknown;
    try {
      await atomicRuntime(env);
    } catch (caught) {
      error = caught;
    }
    return failed('reshard', error);
  }

  it('answers 503 VALKEY9_UNAVAILABLE saying why when the build is absent', async () => {
    const env = { VALKEY9_HOME: join(root, 'missing') };
    const answer = await reshardAnswerWith(env);
    assert.equal(answer.status, 503);
    // A refusal is problem details (RFC 9457), its code and text from the catalogue's row.
    const detail = `Valkey 9.1 is not available: it is not built (no ${env.VALKEY9_HOME}; scripts/valkey9.sh builds it)`;
    const problem = answer.body as { status: number; code: string; detail: string; error: unknown };
    assert.equal(problem.status, 503);
    assert.equal(problem.code, 'VALKEY9_UNAVAILABLE');
    assert.equal(problem.detail, detail);
    assert.deepEqual(problem.error, { code: 'VALKEY9_UNAVAILABLE', message: detail });
    assert.equal((await atomicStatus(env)).state, 'absent');
  });

  it('answers 503 VALKEY9_STARTING, retry after 3 s, while its cluster starts', () => {
    const answer = failed('reshard', new Valkey9UnavailableError('starting'));
    assert.equal(answer.status, 503);
    assert.equal((answer.body as { code: string }).code, 'VALKEY9_STARTING');
    assert.equal(answer.headers?.['retry-after'], '3');
  });

  it('answers 503 VALKEY9_BUILDING, retry after 30 s, while it is being built', async () => {
    const builder = spawn('sleep', ['30']);
    try {
      writeFileSync(join(root, 'state'), `building ${builder.pid}\n`);
      const env = { VALKEY9_HOME: root };
      const answer = await reshardAnswerWith(env);
      assert.equal(answer.status, 503);
      assert.equal((answer.body as { code: string }).code, 'VALKEY9_BUILDING');
      assert.equal(answer.headers?.['retry-after'], '30');
      assert.deepEqual(await atomicStatus(env), { state: 'building', message: 'Valkey 9.1 is being built' });
    } finally {
      builder.kill();
      await closeAtomicRuntime();
    }
  });
});
