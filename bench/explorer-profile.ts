// Where an explorer run's time goes, per experiment, in this process (the JSON API's own answer path,
// JSON and compression included; the HTTP server not). First, runs one at a time are counted: the
// writes their Valkey connections made (each a round trip out, a pipeline once) and the commands the
// servers ran (INFO commandstats, a script's own calls included). Then 24 concurrent callers run under
// V8's CPU profiler, and the CPU per run is split by where it was spent — socket writes, the Valkey
// client, garbage collection, compression, our own files. Prints figures; asserts nothing.
// Run: node bench/explorer-profile.ts [runs per experiment]   (EXPLORER_BENCH_ONLY=keys,console: only those)

import { Session, type Profiler } from 'node:inspector/promises';
import { Valkey } from 'iovalkey';
import { brotliCompressSync, constants } from 'node:zlib';
import { startSandbox } from '../server/sandbox/sandbox.ts';
import { WORKLOADS } from './explorer-workloads.ts';
import { onSocketWrite } from './socket-writes.ts';

const RUNS = Number(process.argv[2] ?? 600);
const CALLERS = 24;
const ONLY = process.env.EXPLORER_BENCH_ONLY?.split(',');

// Every socket in this process is a Valkey connection: its writes are the runs' round trips out.
let writes = 0;
onSocketWrite(() => (writes += 1));
const sandbox = await startSandbox({ databases: 32 });
process.env.VALKEY_URL = sandbox.standalone.url;
process.env.VALKEY_CLUSTER_URL = sandbox.cluster!.url;
const { answerApi } = await import('../server/api/api.ts');
const { explorerRuntime } = await import('../server/explorer/runtime.ts');
const nodes = [sandbox.standalone.url, ...sandbox.cluster!.url.split(',')].map((url) => new Valkey(url));

/** One run as the front answers it: the API's answer, as JSON, compressed as a browser would get it. */
async function run(name: string, input: unknown): Promise<void> {
  const bytes = Buffer.from(JSON.stringify(input));
  const answer = await answerApi(`/api/experiments/${name}`, {
    method: 'POST',
    contentType: 'application/json',
    readBody: async () => bytes,
  });
  if (answer.status !== 200) throw new Error(`${name}: ${JSON.stringify(answer.body)}`);
  const body = Buffer.from(JSON.stringify(answer.body));
  brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 3 } });
}

async function load(name: string, runs: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      for (let i = next++; i < runs; i = next++) await run(name, WORKLOADS[name]!(i));
    }),
  );
}

/** Where a sample's time goes: the nearest frame, leaf upwards, that names a place. */
function place(frame: Profiler.ProfileNode['callFrame']): string | null {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(idle)') return 'idle';
  if (functionName === 'writeUtf8String' || functionName === 'writev' || functionName === 'writeBuffer')
    return 'socket writes';
  if (/iovalkey|redis-parser|standard-as-callback|denque|cluster-key-slot/.test(url)) return 'Valkey client';
  if (url.includes('zlib')) return 'compression';
  if (url.includes('/server/')) return url.slice(url.indexOf('/server/') + 1);
  return null;
}

function breakdown(profile: Profiler.Profile, runs: number): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const spent = new Map<string, number>();
  profile.samples!.forEach((id, i) => {
    let at: number | undefined = id;
    let found: string | null = null;
    while (at !== undefined && !(found = place(byId.get(at)!.callFrame))) at = parent.get(at);
    const where = found ?? 'other (Node, promises, JSON)';
    spent.set(where, (spent.get(where) ?? 0) + profile.timeDeltas![i]!);
  });
  spent.delete('idle');
  return [...spent].map(([where, us]) => [where, us / runs] as [string, number]).sort((a, b) => b[1] - a[1]);
}

/** Runs one at a time, the same input each: the writes to Valkey and the commands run, per run. */
async function countPerRun(name: string, runs: number): Promise<{ writes: number; commands: number }> {
  await Promise.all(nodes.map((node) => node.config('RESETSTAT')));
  const writesBefore = writes;
  for (let i = 0; i < runs; i += 1) await run(name, WORKLOADS[name]!(1));
  const written = writes - writesBefore;
  let commands = 0;
  for (const node of nodes) {
    const info = String(await node.info('commandstats'));
    for (const [, command, calls] of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g))
      if (command !== 'config|resetstat') commands += Number(calls);
  }
  return { writes: written / runs, commands: commands / runs };
}

const session = new Session();
session.connect();
await session.post('Profiler.enable');
try {
  for (const name of Object.keys(WORKLOADS).filter((name) => !ONLY || ONLY.includes(name))) {
    await load(name, Number(process.env.EXPLORER_BENCH_WARM ?? 50)); // warm: connections open, scripts loaded, code compiled
    const counted = await countPerRun(name, 50);
    await session.post('Profiler.start');
    const started = performance.now();
    await load(name, RUNS);
    const seconds = (performance.now() - started) / 1000;
    const { profile } = await session.post('Profiler.stop');
    const parts = breakdown(profile, RUNS);
    const cpu = parts.reduce((sum, [, us]) => sum + us, 0);
    console.log(
      `\n${name}: ${counted.writes.toFixed(1)} writes to Valkey and ${counted.commands.toFixed(1)} commands run per run (one at a time); ${cpu.toFixed(0)} µs of this process's CPU per run (${(RUNS / seconds).toFixed(0)} runs/s in-process)`,
    );
    for (const [where, us] of parts.slice(0, Number(process.env.EXPLORER_BENCH_PLACES ?? 8)))
      console.log(
        `  ${us.toFixed(0).padStart(6)} µs  ${((100 * us) / cpu).toFixed(0).padStart(3)}%  ${where}`,
      );
  }
} finally {
  session.disconnect();
  await (await explorerRuntime()).close();
  for (const node of nodes) node.disconnect();
  await sandbox.stop();
}
