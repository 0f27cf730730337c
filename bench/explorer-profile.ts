// Where an explorer run's time goes, per experiment: runs each one in this process (the JSON API's own
// answer path, JSON and compression included; the HTTP server not) from 24 concurrent callers under
// V8's CPU profiler, and prints the CPU per run split by where it was spent — socket writes, the
// Valkey client, garbage collection, compression, our own files — beside the commands each run sent
// the servers (INFO commandstats, script calls included). Prints figures; asserts nothing.
// Run: node bench/explorer-profile.ts [runs per experiment]

import { Session, type Profiler } from 'node:inspector/promises';
import { Valkey } from 'iovalkey';
import { brotliCompressSync, constants } from 'node:zlib';
import { startSandbox } from '../server/sandbox/sandbox.ts';

const RUNS = Number(process.argv[2] ?? 600);
const CALLERS = 24;
const WORKLOADS: Record<string, (i: number) => unknown> = {
  keys: (i) => ({ queue: `bench-${i % 97}` }),
  slot: (i) => ({ queue: `bench-${i % 97}`, other: 'fills' }),
  layout: (i) => ({
    verb: 'enqueue',
    queue: 'orders',
    ...(i % 2 ? {} : { keys: ['emq:{orders}:job:JOB0Nb1VTbfnu4', 'emq:{orderz}:pending'] }),
  }),
  route: (i) => ({ queue: `bench-${i % 97}` }),
  reserve: () => ({}),
  'two-executors': () => ({ steps: ['enqueue', 'claim', 'complete'] }),
};

const sandbox = await startSandbox({ databases: 32 });
process.env.VALKEY_URL = sandbox.standalone.url;
process.env.VALKEY_CLUSTER_URL = sandbox.cluster!.url;
const { answerApi } = await import('../server/experiments/http.ts');
const { explorerRuntime } = await import('../server/experiments/runtime.ts');
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

async function commandsPerRun(name: string, runs: number): Promise<string> {
  await Promise.all(nodes.map((node) => node.config('RESETSTAT')));
  await load(name, runs);
  let total = 0;
  for (const node of nodes) {
    const info = String(await node.info('commandstats'));
    for (const [, command, calls] of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g))
      if (command !== 'config|resetstat') total += Number(calls);
  }
  return (total / runs).toFixed(1);
}

const session = new Session();
session.connect();
await session.post('Profiler.enable');
try {
  for (const name of Object.keys(WORKLOADS)) {
    await load(name, 50); // warm: connections open, scripts loaded, code compiled
    const commands = await commandsPerRun(name, 100);
    await session.post('Profiler.start');
    const started = performance.now();
    await load(name, RUNS);
    const seconds = (performance.now() - started) / 1000;
    const { profile } = await session.post('Profiler.stop');
    const parts = breakdown(profile, RUNS);
    const cpu = parts.reduce((sum, [, us]) => sum + us, 0);
    console.log(
      `\n${name}: ${cpu.toFixed(0)} µs of this process's CPU per run (${(RUNS / seconds).toFixed(0)} runs/s in-process), ${commands} commands per run on the servers`,
    );
    for (const [where, us] of parts.slice(0, 8))
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
