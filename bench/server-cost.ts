// The server's work per transition, counted instead of timed: valkey-server runs under callgrind, which
// collects only inside `processCommand` (the command's lookup, checks, execution and propagation — not
// reading the socket or writing the reply), so the counts do not move with the machine's load. For each
// transition it prints the instructions and the allocator calls (malloc + calloc + realloc) per
// transition for the floor (the Lua's commands sent plainly, summed), the script and the native module.
// With `--replica` the server under callgrind is instead a replica (loading the module only for
// `replicate verbatim`) of a primary that loads it and runs the transitions, and the counts are its cost to
// apply what each kind sent it: collected inside `readQueryFromClient` (reading, parsing and applying the
// stream), from after it has applied a cell's preparation to after it has applied the cell (`WAIT`).
// With `--with-replica` the server under callgrind stays the primary and a replica is attached to it, so
// the counts include what propagating to a replica costs each kind (a module's `MULTI`/`EXEC` around its
// effects, the plain commands' own feed).
// Slow (everything runs ~50× slower under valgrind), so it runs few calls; figures, not tests.

import { spawn } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Valkey } from 'iovalkey';
import type { Executor } from '../server/executors/executor.ts';
import { NativeExecutor } from '../server/executors/native.ts';
import { ScriptedExecutor } from '../server/executors/scripted.ts';
import { CORE_TRANSITIONS, type CoreTransition } from '../server/contract/transitions.ts';
import { versionKey, WIRE6_IDENTITY } from '../server/contract/keyspace/index.ts';
import { freePort } from '../server/sandbox/free-port.ts';
import {
  nativeModulePath,
  startValkeyNode,
  untilAnswers,
  type ValkeyNode,
} from '../server/sandbox/valkey-process.ts';
import { runChunked, runPlain, WORKLOADS } from './workloads.ts';

const run = promisify(execFile);
const OPS = Number(process.env.COST_OPS ?? 1000);
const JSON_OUTPUT = process.argv.includes('--json');
const REPLICA = process.argv.includes('--replica');
const WITH_REPLICA = process.argv.includes('--with-replica');
if (REPLICA && WITH_REPLICA)
  throw new Error('--replica and --with-replica measure different servers: pick one');
const ALLOCATORS = new Set(['malloc', 'calloc', 'realloc']);
type Kind = 'floor' | 'scripted' | 'native';
const KINDS: Kind[] = ['floor', 'scripted', 'native'];

/** Instructions and allocator calls in one callgrind dump. */
function parseDump(text: string): { instructions: number; allocations: number } {
  const names = new Map<string, string>();
  let callee = '';
  let allocations = 0;
  let instructions = NaN;
  for (const line of text.split('\n')) {
    // `cfn=(12) malloc` names function 12 on first use; later lines say `cfn=(12)` alone.
    const fn = /^c?fn=\((\d+)\)(?: (.*))?$/.exec(line);
    if (fn) {
      if (fn[2]) names.set(fn[1]!, fn[2]);
      if (line.startsWith('cfn=')) callee = names.get(fn[1]!) ?? '';
      continue;
    }
    const calls = /^calls=(\d+)/.exec(line);
    if (calls && ALLOCATORS.has(callee)) allocations += Number(calls[1]);
    const totals = /^(?:totals|summary): (\d+)/.exec(line);
    if (totals) instructions = Number(totals[1]);
  }
  return { instructions, allocations };
}

// BENCH_MODULE points at another build of the module (say, the one before a change) to compare.
const module = process.env.BENCH_MODULE ?? nativeModulePath();
if (!module)
  throw new Error('native-module/target/release/libtrafikey.so is not built (cargo build --release)');
// BENCH_MODULE_ARGS: the module's load arguments, e.g. `replicate verbatim` (see native-module/README.md).
const moduleArgs = (process.env.BENCH_MODULE_ARGS ?? '').split(' ').filter(Boolean);
const dir = await mkdtemp(join(tmpdir(), 'emq-callgrind-'));
const port = await freePort();
// A replica loads the module only when the pure verbs arrive as themselves.
const replicaModule = moduleArgs.join(' ').includes('replicate verbatim');
const primary = REPLICA
  ? await startValkeyNode({ module, moduleArgs, settings: { 'repl-diskless-sync-delay': '0' } })
  : null;
const server = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    '--collect-atstart=no',
    `--toggle-collect=${REPLICA ? 'readQueryFromClient' : 'processCommand'}`,
    `--callgrind-out-file=${join(dir, 'cg.out')}`,
    process.env.VALKEY_SERVER ?? 'valkey-server',
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    // A replica attached with `--with-replica` syncs at once instead of after the default 5 s.
    ...['--repl-diskless-sync-delay', '0'],
    ...(primary
      ? [
          ...(replicaModule ? ['--loadmodule', module] : []),
          '--replicaof',
          primary.host,
          String(primary.port),
        ]
      : ['--loadmodule', module, ...moduleArgs]),
  ],
  { stdio: 'ignore' },
);
const measured = new Valkey(`redis://127.0.0.1:${port}`, { lazyConnect: true, retryStrategy: () => null });
measured.on('error', () => {});
// The transitions run on the server measured, or with `--replica` on its primary.
const client = primary ? new Valkey(primary.url) : measured;
/** The replica attached to the measured server (`--with-replica`), once it is up. */
let attached: ValkeyNode | null = null;
/** With a replica: returns once it has applied everything its primary sent so far. */
const applied = async () => {
  if (primary || attached) await client.call('WAIT', 1, 600_000);
};

/** Returns once `replica` has linked to its primary. */
async function linked(replica: Valkey): Promise<void> {
  while (!String(await replica.info('replication')).includes('master_link_status:up')) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Resets callgrind's counters; `dump` then writes what happened since as `cg.out.N`. */
const control = (flag: '-z' | '-d') => run('callgrind_control', [flag, String(server.pid)]);

async function dumped(): Promise<string> {
  const files = (await readdir(dir)).filter((f) => /^cg\.out\.\d+$/.test(f));
  const last = files.sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop())).pop();
  if (!last) throw new Error('callgrind wrote no dump');
  const text = await readFile(join(dir, last), 'utf8');
  await rm(join(dir, last));
  return text;
}

try {
  // Under callgrind the server boots slowly.
  await untilAnswers(measured, 120_000, 200);
  if (primary) await linked(measured);
  if (WITH_REPLICA) {
    attached = await startValkeyNode({
      module: replicaModule ? module : null,
      settings: { replicaof: `127.0.0.1 ${port}` },
    });
    const replica = new Valkey(attached.url);
    await linked(replica);
    replica.disconnect();
  }
  const executors: Record<'scripted' | 'native', Executor> = {
    scripted: new ScriptedExecutor(client),
    native: new NativeExecutor(client),
  };
  const rows: Array<{ name: CoreTransition } & Record<Kind, { instructions: number; allocations: number }>> =
    [];
  for (const name of CORE_TRANSITIONS) {
    const workload = WORKLOADS[name];
    const row = { name } as (typeof rows)[number];
    for (const kind of KINDS) {
      await client.flushdb();
      if (kind === 'native') await client.set(versionKey(), WIRE6_IDENTITY);
      const ids = await workload.prepare(executors.scripted, OPS);
      await applied();
      await control('-z');
      if (kind === 'floor') await runPlain(client, workload, ids);
      else await runChunked(executors[kind], workload.calls(ids));
      await applied();
      await control('-d');
      const { instructions, allocations } = parseDump(await dumped());
      row[kind] = { instructions: Math.round(instructions / OPS), allocations: allocations / OPS };
    }
    rows.push(row);
  }

  if (JSON_OUTPUT) {
    console.log(JSON.stringify({ ops: OPS, transitions: rows }, null, 2));
  } else {
    console.log(
      primary
        ? `a replica under callgrind, counted inside readQueryFromClient (what applying each kind's stream costs it); ${OPS} transitions per cell`
        : `valkey-server under callgrind${attached ? ', a replica attached' : ''}, counted inside processCommand; ${OPS} transitions per cell`,
    );
    console.log('');
    const header = ['transition', 'floor Ir', 'scripted Ir', 'native Ir', 'floor allocs', 'scripted allocs'];
    console.log([...header, 'native allocs'].map((h, i) => (i ? h.padStart(16) : h.padEnd(12))).join(''));
    for (const r of rows) {
      const cells = [
        ...KINDS.map((k) => String(r[k].instructions)),
        ...KINDS.map((k) => r[k].allocations.toFixed(1)),
      ];
      console.log(r.name.padEnd(12) + cells.map((c) => c.padStart(16)).join(''));
    }
    console.log('');
    console.log(
      'Ir: instructions the server ran per transition; allocs: malloc/calloc/realloc calls per transition.',
    );
  }
} finally {
  client.disconnect();
  measured.disconnect();
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await primary?.stop();
  await attached?.stop();
  await exited;
  await rm(dir, { recursive: true, force: true });
}
