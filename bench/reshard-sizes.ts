// The reshard click in both modes at each offered size, in one process as the front answers it (the
// API's answer, as JSON, brotli-compressed), on a sandbox of its own (Valkey 8 cluster) and the Valkey
// 9.1 cluster (scripts/valkey9.sh builds it). Per mode and size, the median of RUNS clicks (min–max
// beside): the move's time (moveMs), the worker's longest stretch without a served claim, its claims
// by outcome, whether it gave up, the answer's time after the move's last phase, the click's wall time,
// and the site's CPU per click (this process: the worker included) beside Valkey's (its servers).
// Then, per size, the worker's longest wait in both modes side by side, and whether every key-by-key
// run waited longer than every atomic one: the figure behind the size the page runs by default. The
// machine's load average is printed before and after (other work on the machine stretches the waits).
// Figures only; the tests hold the behaviour. Run: npm run bench:reshard [runs] (default 10)

import { subscribe } from 'node:diagnostics_channel';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { brotliCompressSync, constants } from 'node:zlib';
import { startSandbox } from '../server/sandbox/sandbox.ts';
import { processTreeOf } from '../tests/support/processes.ts';
import {
  MIGRATION_MODES,
  MIGRATION_SIZES,
  replyKind,
  type MigrationResult,
  type ReplyKind,
} from '../server/contract/experiments/migration.ts';
import type { MoveTimed } from '../server/experiments/migration/clock.ts';

const RUNS = Number(process.argv[2] ?? 10);
const ONLY = process.env.RESHARD_BENCH_ONLY?.split(',');
const sandbox = await startSandbox({ databases: 32 });
process.env.VALKEY_URL = sandbox.standalone.url;
process.env.VALKEY_CLUSTER_URL = sandbox.cluster!.url;
const { answerApi } = await import('../server/api/api.ts');
const { atomicRuntime, closeAtomicRuntime } = await import('../server/explorer/atomic-runtime.ts');

let timed: MoveTimed | null = null;
subscribe('emq:reshard:timed', (message) => (timed = message as MoveTimed));

/** CPU ms so far of this process, and of the valkey-servers under it. */
function cpu(): { site: number; valkey: number } {
  const usage = process.cpuUsage();
  const site = (usage.user + usage.system) / 1000;
  if (!existsSync('/proc')) return { site, valkey: NaN };
  const valkey = processTreeOf(process.pid)
    .filter((p) => p.comm.startsWith('valkey'))
    .reduce((sum, p) => sum + p.cpuMs, 0);
  return { site, valkey };
}

interface Click {
  result: MigrationResult;
  wallMs: number;
  afterLastPhaseMs: number;
  siteCpuMs: number;
  valkeyCpuMs: number;
}

async function click(mode: string, size: number): Promise<Click> {
  const bytes = Buffer.from(JSON.stringify({ queue: 'orders', mode, size }));
  const before = cpu();
  const started = performance.now();
  timed = null;
  const answer = await answerApi('/api/experiments/reshard', {
    method: 'POST',
    contentType: 'application/json',
    readBody: async () => bytes,
  });
  if (answer.status !== 200) throw new Error(`${mode} ${size}: ${JSON.stringify(answer.body)}`);
  brotliCompressSync(Buffer.from(JSON.stringify(answer.body)), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 3 },
  });
  const ended = performance.now();
  const after = cpu();
  const move = timed as MoveTimed | null;
  if (!move) throw new Error('the answer published no move times');
  return {
    result: (answer.body as { result: MigrationResult }).result,
    wallMs: ended - started,
    afterLastPhaseMs: ended - move.lastPhaseAt,
    siteCpuMs: after.site - before.site,
    valkeyCpuMs: after.valkey - before.valkey,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const figure = (values: number[]) =>
  `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;

try {
  if (!ONLY || ONLY.some((only) => only.startsWith('atomic'))) await atomicRuntime();
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
  console.log(`reshard clicks, ${RUNS} per mode and size (median, min–max), one process, own sandbox`);
  console.log(`load average before: ${load()} (${cpus().length} cores)\n`);
  const waits = new Map<string, number[]>();
  console.log(
    'mode    jobs    moveMs         worker waited   claims (served/retry/redirected/refused)  gave up  after last phase  wall ms        site CPU ms   valkey CPU ms',
  );
  for (const mode of MIGRATION_MODES) {
    for (const size of MIGRATION_SIZES) {
      if (ONLY && !ONLY.includes(`${mode}:${size}`)) continue;
      await click(mode, size); // warm: scripts loaded, connections open
      const clicks: Click[] = [];
      for (let i = 0; i < RUNS; i += 1) clicks.push(await click(mode, size));
      const kinds = (kind: ReplyKind) =>
        median(
          clicks.map((c) => c.result.worker.claims.filter((claim) => replyKind(claim.reply) === kind).length),
        );
      const outcomes = `${kinds('served')}/${kinds('retry')}/${kinds('redirected')}/${kinds('refused')}`;
      const gaveUp = clicks.filter((c) => c.result.worker.gaveUp).length;
      waits.set(
        `${mode}:${size}`,
        clicks.map((c) => c.result.worker.longestWaitMs),
      );
      console.log(
        [
          mode.padEnd(7),
          String(size).padEnd(7),
          figure(clicks.map((c) => c.result.moveMs)).padEnd(14),
          figure(clicks.map((c) => c.result.worker.longestWaitMs)).padEnd(15),
          outcomes.padEnd(41),
          `${gaveUp}/${RUNS}`.padEnd(8),
          figure(clicks.map((c) => c.afterLastPhaseMs)).padEnd(17),
          figure(clicks.map((c) => c.wallMs)).padEnd(14),
          figure(clicks.map((c) => c.siteCpuMs)).padEnd(13),
          figure(clicks.map((c) => c.valkeyCpuMs)),
        ].join(' '),
      );
    }
  }
  console.log(`\nthe worker's longest wait, ms (median, min–max of ${RUNS})`);
  for (const size of MIGRATION_SIZES) {
    const keys = waits.get(`keys:${size}`);
    const atomic = waits.get(`atomic:${size}`);
    if (!keys || !atomic) continue;
    const apart = Math.min(...keys) > Math.max(...atomic);
    console.log(
      `${size.toLocaleString('en').padStart(6)} jobs: key by key ${figure(keys)}, atomic ${figure(atomic)}: ${apart ? 'every key-by-key run waited longer than every atomic one' : 'the ranges overlap'}`,
    );
  }
  console.log(`load average after: ${load()}`);
} catch (error) {
  console.error(`the bench stopped: ${(error as Error).stack}`);
  process.exitCode = 1;
} finally {
  await closeAtomicRuntime();
  await sandbox.stop();
  process.exit();
}
