// Throughput of each transition, pipelined, on one sandbox server in one run: the scripted executor,
// the native module when it is built, and a floor — the same writes sent as plain pipelined commands,
// and PING. Prints figures; asserts nothing (timings are not tests).

import type { ChainableCommander, Valkey } from 'iovalkey';
import { Valkey as Client } from 'iovalkey';
import {
  claimCall,
  completeCall,
  enqueueCall,
  promoteCall,
  reapCall,
  retryCall,
  scheduleCall,
} from '../server/executors/calls.ts';
import type { Executor } from '../server/executors/executor.ts';
import { NativeExecutor } from '../server/executors/native.ts';
import { ScriptedExecutor } from '../server/executors/scripted.ts';
import { TRANSITIONS, type Call, type CoreTransition } from '../server/executors/transitions.ts';
import { IdMinter, jobKey, queueKey, rowBase, versionKey, WIRE6_IDENTITY } from '../server/keyspace/index.ts';
import { startSandbox } from '../server/sandbox/sandbox.ts';

const OPS = Number(process.env.BENCH_OPS ?? 20_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const QUEUE = 'bench';
const minter = new IdMinter(3);

interface Workload {
  /** Puts the database in the state the measured calls need; returns the ids involved. */
  prepare(setup: Executor, n: number): Promise<string[]>;
  calls(ids: string[]): Call[];
  /** The same writes as plain commands, for the floor. */
  plain(pipeline: ChainableCommander, id: string): void;
}

async function enqueued(setup: Executor, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => minter.mint());
  await runChunked(
    setup,
    ids.map((id) => enqueueCall(QUEUE, id, 'payload')),
  );
  return ids;
}

async function claimed(setup: Executor, n: number, leaseMs = 60_000): Promise<string[]> {
  const ids = await enqueued(setup, n);
  await runChunked(
    setup,
    ids.map(() => claimCall(QUEUE, leaseMs)),
  );
  return ids;
}

const WORKLOADS: Record<CoreTransition, Workload> = {
  enqueue: {
    prepare: async (_, n) => Array.from({ length: n }, () => minter.mint()),
    calls: (ids) => ids.map((id) => enqueueCall(QUEUE, id, 'payload')),
    plain: (p, id) => {
      p.hset(jobKey(QUEUE, id), 'state', 'pending', 'attempts', '0', 'payload', 'payload');
      p.zadd(queueKey(QUEUE, 'pending'), 0, id);
    },
  },
  schedule: {
    prepare: async (_, n) => Array.from({ length: n }, () => minter.mint()),
    calls: (ids) => ids.map((id) => scheduleCall(QUEUE, id, 'payload', 4_102_444_800_000)),
    plain: (p, id) => {
      p.hset(jobKey(QUEUE, id), 'state', 'scheduled', 'attempts', '0', 'payload', 'payload');
      p.zadd(queueKey(QUEUE, 'schedule'), 4_102_444_800_000, id);
    },
  },
  claim: {
    prepare: enqueued,
    calls: (ids) => ids.map(() => claimCall(QUEUE, 60_000)),
    plain: (p, id) => {
      p.zpopmin(queueKey(QUEUE, 'pending'));
      p.hincrby(rowBase(QUEUE) + id, 'attempts', 1);
      p.hset(rowBase(QUEUE) + id, 'state', 'active');
      p.zadd(queueKey(QUEUE, 'active'), Date.now() + 60_000, id);
    },
  },
  complete: {
    prepare: (setup, n) => claimed(setup, n),
    calls: (ids) => ids.map((id) => completeCall(QUEUE, id, 1)),
    plain: (p, id) => {
      p.zrem(queueKey(QUEUE, 'active'), id);
      p.del(jobKey(QUEUE, id));
      p.hincrby(queueKey(QUEUE, 'metrics:completed'), 'count', 1);
    },
  },
  retry: {
    prepare: (setup, n) => claimed(setup, n),
    calls: (ids) =>
      ids.map((id) => retryCall(QUEUE, id, 1, { delayMs: 1000, maxAttempts: 5, error: 'boom' })),
    plain: (p, id) => {
      p.hset(jobKey(QUEUE, id), 'last_error', 'boom', 'state', 'scheduled');
      p.zrem(queueKey(QUEUE, 'active'), id);
      p.zadd(queueKey(QUEUE, 'schedule'), Date.now() + 1000, id);
    },
  },
  promote: {
    prepare: async (setup, n) => {
      const ids = Array.from({ length: n }, () => minter.mint());
      await runChunked(
        setup,
        ids.map((id) => scheduleCall(QUEUE, id, 'payload', 0)),
      );
      return ids;
    },
    calls: (ids) => ids.map(() => promoteCall(QUEUE, 1)),
    plain: (p, id) => {
      p.zrem(queueKey(QUEUE, 'schedule'), id);
      p.zadd(queueKey(QUEUE, 'pending'), 0, id);
      p.hset(jobKey(QUEUE, id), 'state', 'pending');
    },
  },
  reap: {
    prepare: (setup, n) => claimed(setup, n, 0),
    calls: (ids) => ids.map(() => reapCall(QUEUE, 1)),
    plain: (p, id) => {
      p.zrem(queueKey(QUEUE, 'active'), id);
      p.zadd(queueKey(QUEUE, 'pending'), 0, id);
      p.hset(jobKey(QUEUE, id), 'state', 'pending');
    },
  },
};

async function runChunked(executor: Executor, calls: Call[]): Promise<void> {
  for (let i = 0; i < calls.length; i += BATCH) {
    const verdicts = await executor.runMany(calls.slice(i, i + BATCH));
    const failure = verdicts.find((verdict) => verdict instanceof Error);
    if (failure) throw failure;
  }
}

async function timed(work: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return OPS / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function fresh(client: Valkey, native: boolean): Promise<void> {
  await client.flushdb();
  if (native) await client.set(versionKey(), WIRE6_IDENTITY);
}

/**
 * The server's own time per call for `command` since the last CONFIG RESETSTAT: what the executor costs
 * the server, apart from the client and the network that bound the ops/s figures.
 */
async function serverMicrosPerCall(client: Valkey, command: string): Promise<number> {
  const stats = String(await client.info('commandstats'));
  // Module commands are listed under the name they were registered with (EMQ.CLAIM), scripts lower-case.
  const line = new RegExp(`^cmdstat_${command.replace('.', '\\.')}:.*usec_per_call=([\\d.]+)`, 'mi');
  return Number(line.exec(stats)?.[1] ?? NaN);
}

/** Measures `work`, with the server's counters reset just before it. */
async function measured(
  work: () => Promise<void>,
  command: string,
): Promise<{ rate: number; micros: number }> {
  await client.call('CONFIG', 'RESETSTAT');
  const rate = await timed(work);
  return { rate, micros: await serverMicrosPerCall(client, command) };
}

const sandbox = await startSandbox({ cluster: false });
const client = new Client(sandbox.standalone.url);
const scripted = new ScriptedExecutor(client);
const native = sandbox.nativeModule ? new NativeExecutor(client) : null;

const ping = await timed(async () => {
  for (let i = 0; i < OPS; i += BATCH) {
    const pipeline = client.pipeline();
    for (let j = i; j < Math.min(OPS, i + BATCH); j += 1) pipeline.ping();
    await pipeline.exec();
  }
});

console.log(
  `valkey ${(await client.info('server')).match(/valkey_version:(\S+)/)?.[1]} on ${sandbox.standalone.url}`,
);
console.log(`${OPS} operations per cell, pipelined ${BATCH} at a time; PING floor ${Math.round(ping)} ops/s`);
if (!native) console.log('native module not built: run `npm test` or `npm start` once to build it');
console.log('');
console.log('ops/s (client-bound, one pipelined connection) and, in brackets, the server\u2019s µs per call');
const header = ['transition', 'plain cmds', 'scripted', 'native', 'native/scripted', 'server µs ratio'];
console.log(header.map((h) => h.padStart(18)).join(''));

for (const [name, workload] of Object.entries(WORKLOADS) as Array<[CoreTransition, Workload]>) {
  await fresh(client, false);
  const plainIds = await workload.prepare(scripted, OPS);
  const plain = await timed(async () => {
    for (let i = 0; i < OPS; i += BATCH) {
      const pipeline = client.pipeline();
      for (const id of plainIds.slice(i, i + BATCH)) workload.plain(pipeline, id);
      await pipeline.exec();
    }
  });

  await fresh(client, false);
  const scriptedIds = await workload.prepare(scripted, OPS);
  const viaScript = await measured(() => runChunked(scripted, workload.calls(scriptedIds)), 'evalsha');

  let viaModule: { rate: number; micros: number } | null = null;
  if (native) {
    await fresh(client, true);
    const nativeIds = await workload.prepare(scripted, OPS);
    viaModule = await measured(
      () => runChunked(native, workload.calls(nativeIds)),
      TRANSITIONS[name].command,
    );
  }
  const cells = [
    name,
    `${Math.round(plain)}`,
    `${Math.round(viaScript.rate)} (${viaScript.micros.toFixed(1)})`,
    viaModule ? `${Math.round(viaModule.rate)} (${viaModule.micros.toFixed(1)})` : '-',
    viaModule ? `${(viaModule.rate / viaScript.rate).toFixed(2)}x` : '-',
    viaModule ? `${(viaScript.micros / viaModule.micros).toFixed(2)}x` : '-',
  ];
  console.log(cells.map((cell) => cell.padStart(18)).join(''));
}

await client.quit();
await sandbox.stop();
