// What each transition costs the server, in one run: the scripted executor (EVALSHA), the native module
// (EMQ.*) and the floor — every command the transition's Lua runs, sent as plain pipelined commands, summed.
// Figures are the server's own µs per call (INFO commandstats after CONFIG RESETSTAT), not wall clock: one
// pipelined Node client bounds every ops/s figure, and other processes share the cores. Each cell is the
// fastest of ROUNDS interleaved runs, each on fresh job ids: a command's time only grows when another
// process takes the core mid-command, so the fastest run is the least disturbed (on a loaded 2-core
// machine, medians of 3 moved by ±100% between runs; the fastest of 7 by about ±10%). A second table
// repeats them with a replica attached. Prints figures (or `--json`); asserts nothing (timings are not tests).

import { availableParallelism, loadavg } from 'node:os';
import type { Valkey } from 'iovalkey';
import { Valkey as Client } from 'iovalkey';
import type { Executor } from '../server/executors/executor.ts';
import { NativeExecutor } from '../server/executors/native.ts';
import { ScriptedExecutor } from '../server/executors/scripted.ts';
import { CORE_TRANSITIONS, TRANSITIONS, type CoreTransition } from '../server/contract/transitions.ts';
import { versionKey, WIRE6_IDENTITY } from '../server/contract/keyspace/index.ts';
import { nativeModulePath, startValkeyNode, type ValkeyNode } from '../server/sandbox/valkey-process.ts';
import { runChunked, runPlain, WORKLOADS } from './workloads.ts';

const OPS = Number(process.env.BENCH_OPS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const JSON_OUTPUT = process.argv.includes('--json');

type Kind = 'floor' | 'scripted' | 'native';

/** `cmdstat_<name>` → total µs and calls since the last CONFIG RESETSTAT. */
async function commandStats(client: Valkey): Promise<Map<string, { usec: number; calls: number }>> {
  const stats = new Map<string, { usec: number; calls: number }>();
  for (const match of String(await client.info('commandstats')).matchAll(
    /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm,
  )) {
    stats.set(match[1]!.toLowerCase(), { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return stats;
}

/** A server's CPU time so far (user + system, all threads), µs: what applying a stream costs a replica. */
async function cpuUs(client: Valkey): Promise<number> {
  const info = String(await client.info('cpu'));
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
}

/**
 * One cell: fresh data, the workload's state prepared, counters reset, OPS transitions, server µs per
 * transition; with a replica, also the replica's CPU µs per transition to apply what the cell sent it
 * (reading the stream included), from after it has applied the preparation to after it has applied all.
 */
async function cell(
  client: Valkey,
  name: CoreTransition,
  kind: Kind,
  executors: Record<Kind, Executor | null>,
  replica: Valkey | null,
) {
  const workload = WORKLOADS[name];
  await client.flushdb();
  if (kind === 'native') await client.set(versionKey(), WIRE6_IDENTITY);
  const ids = await workload.prepare(executors.scripted!, OPS);
  await client.call('CONFIG', 'RESETSTAT');
  if (replica) await client.call('WAIT', 1, 10_000);
  const replicaBefore = replica ? await cpuUs(replica) : NaN;
  if (kind === 'floor') await runPlain(client, workload, ids);
  else await runChunked(executors[kind]!, workload.calls(ids));
  if (replica) await client.call('WAIT', 1, 10_000);
  const replicaUs = replica ? ((await cpuUs(replica)) - replicaBefore) / OPS : null;
  const stats = await commandStats(client);
  // The floor is the sum of every plain command; an executor's cost is its one command (the commands a
  // script runs are also counted on their own lines, and are inside its EVALSHA time).
  const command = kind === 'native' ? TRANSITIONS[name].command.toLowerCase() : 'evalsha';
  const usec =
    kind === 'floor'
      ? [...stats]
          .filter(([cmd]) => !['config', 'wait'].includes(cmd))
          .reduce((sum, [, s]) => sum + s.usec, 0)
      : (stats.get(command)?.usec ?? NaN);
  return { us: usec / OPS, replicaUs };
}

interface Figures {
  scriptedUs: number;
  nativeUs: number | null;
  floorUs: number;
  /** With a replica: its CPU µs per transition to apply each kind's stream. */
  replicaUs: Record<Kind, number | null> | null;
}

/** Every transition × kind, ROUNDS times, the kinds' order rotated each round; the fastest of each cell. */
async function measureAll(client: Valkey, executors: Record<Kind, Executor | null>, replica: Valkey | null) {
  const kinds: Kind[] = executors.native ? ['floor', 'scripted', 'native'] : ['floor', 'scripted'];
  const samples = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const name of CORE_TRANSITIONS) {
      for (let k = 0; k < kinds.length; k += 1) {
        const kind = kinds[(k + round) % kinds.length]!;
        const measured = await cell(client, name, kind, executors, replica);
        for (const [key, value] of [
          [`${name} ${kind}`, measured.us],
          [`${name} ${kind} replica`, measured.replicaUs],
        ] as const) {
          if (value !== null) samples.set(key, [...(samples.get(key) ?? []), value]);
        }
      }
    }
  }
  const figures = new Map<CoreTransition, Figures>();
  for (const name of CORE_TRANSITIONS) {
    const of = (key: string) => {
      const list = samples.get(`${name} ${key}`);
      return list ? round2(Math.min(...list)) : null;
    };
    const replicaUs = replica
      ? { floor: of('floor replica'), scripted: of('scripted replica'), native: of('native replica') }
      : null;
    figures.set(name, {
      scriptedUs: of('scripted')!,
      nativeUs: of('native'),
      floorUs: of('floor')!,
      replicaUs,
    });
  }
  return figures;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function ratio(a: number | null, b: number | null): string {
  return a === null || b === null ? '-' : `${(a / b).toFixed(2)}x`;
}

function table(title: string, figures: Map<CoreTransition, Figures>): void {
  console.log(title);
  const withReplica = [...figures.values()].some((f) => f.replicaUs);
  const header = ['transition', 'scripted µs', 'native µs', 'floor µs', 'scripted÷native', 'native÷floor'];
  if (withReplica) header.push('replica: floor', 'scripted', 'native');
  console.log(header.map((h, i) => (i === 0 ? h.padEnd(12) : h.padStart(16))).join(''));
  for (const [name, f] of figures) {
    const cells = [
      name.padEnd(12),
      f.scriptedUs.toFixed(2),
      f.nativeUs?.toFixed(2) ?? '-',
      f.floorUs.toFixed(2),
      ratio(f.scriptedUs, f.nativeUs),
      ratio(f.nativeUs, f.floorUs),
    ];
    if (f.replicaUs)
      cells.push(
        ...(['floor', 'scripted', 'native'] as const).map((k) => f.replicaUs![k]?.toFixed(2) ?? '-'),
      );
    console.log(cells.map((c, i) => (i === 0 ? c : c.padStart(16))).join(''));
  }
  console.log('');
}

async function waitForLink(replica: Valkey): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!String(await replica.info('replication')).includes('master_link_status:up')) {
    if (Date.now() > deadline) throw new Error('the replica never linked to the primary');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// BENCH_MODULE points at another build of the module (say, the one before a change) to compare.
const module = process.env.BENCH_MODULE ?? nativeModulePath();
// No replica's first sync should wait the default 5 s for more replicas.
// BENCH_MODULE_ARGS: the module's load arguments (`replicate script|effects|verbatim`); with
// `replicate verbatim` the replica loads it too.
const moduleArgs = (process.env.BENCH_MODULE_ARGS ?? '').split(' ').filter(Boolean);
const verbatim = moduleArgs.join(' ').includes('replicate verbatim');
const script = moduleArgs.join(' ').includes('replicate script');
const primary = await startValkeyNode({ module, moduleArgs, settings: { 'repl-diskless-sync-delay': '0' } });
const client = new Client(primary.url);
const executors: Record<Kind, Executor | null> = {
  floor: null,
  scripted: new ScriptedExecutor(client),
  native: module ? new NativeExecutor(client) : null,
};
let replica: ValkeyNode | null = null;
let replicaClient: Valkey | null = null;
try {
  const version = String(await client.info('server')).match(/valkey_version:(\S+)/)?.[1];
  // Timings on a shared machine mean little without its load: printed at the start and at the end.
  const load = () => loadavg().map((l) => Number(l.toFixed(2)));
  const loadAtStart = load();
  if (!JSON_OUTPUT) {
    console.log(
      `valkey ${version}; load average ${loadAtStart.join(' ')} (1, 5, 15 min) on ${availableParallelism()} cores;`,
    );
    console.log(`${OPS} transitions per cell, pipelined ${BATCH} at a time;`);
    console.log(`fastest of ${ROUNDS} interleaved rounds; server µs per transition from INFO commandstats`);
    if (!module) console.log('native module not built: run `npm test` or `npm start` once to build it');
    console.log('');
  }
  const alone = await measureAll(client, executors, null);
  if (!JSON_OUTPUT) table('no replica', alone);

  replica = await startValkeyNode({
    module: verbatim ? module : null,
    settings: { replicaof: `${primary.host} ${primary.port}` },
  });
  replicaClient = new Client(replica.url);
  await waitForLink(replicaClient);
  const replicated = await measureAll(client, executors, replicaClient);
  if (!JSON_OUTPUT) {
    table(
      verbatim
        ? 'one replica attached (with the module: enqueue, schedule, complete arrive verbatim, the rest as effects)'
        : script
          ? 'one replica attached (without the module: each transition arrives as one EVAL of its effects)'
          : 'one replica attached (without the module: each effect arrives as its own plain command)',
      replicated,
    );
    console.log('scripted÷native: how many times cheaper native is than the script (higher is better);');
    console.log(
      'native÷floor: what native costs over the same work sent as plain commands (1.00x is the floor).',
    );
    console.log(
      "replica: the replica's CPU µs (user + system) per transition to apply what each kind sent it.",
    );
    console.log(`load average at the end: ${load().join(' ')}`);
  } else {
    const transitions = CORE_TRANSITIONS.map((name) => ({
      name,
      ...alone.get(name)!,
      replica: replicated.get(name)!,
    }));
    const loadAverage = { start: loadAtStart, end: load() };
    console.log(
      JSON.stringify({ valkey: version, ops: OPS, rounds: ROUNDS, loadAverage, transitions }, null, 2),
    );
  }
} finally {
  await replicaClient?.quit();
  await client.quit();
  await replica?.stop();
  await primary.stop();
}

// The scripted executor on the three-node cluster beside a standalone node, ops/s (bench/cluster.ts).
if (!JSON_OUTPUT) {
  console.log('');
  await (await import('./cluster.ts')).benchCluster();
}
