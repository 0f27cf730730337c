// The bench's workloads, one per core transition: the state each call needs, the calls, and the floor —
// every command the transition's Lua runs, in its order, sent as plain commands. Shared by
// `transitions.ts` (server µs) and `server-cost.ts` (instructions and allocations under callgrind).

import type { ChainableCommander, Valkey } from 'iovalkey';
import { callFor } from '../server/contract/calls.ts';
import type { Executor } from '../server/executors/executor.ts';
import type { Call, CoreTransition } from '../server/contract/transitions.ts';
import { IdMinter, jobKey, queueKey, type KeyType } from '../server/contract/keyspace/index.ts';

const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const QUEUE = 'bench';
const LATER = 4_102_444_800_000;
const minter = new IdMinter(3);

export interface Workload {
  /** Puts the database in the state the measured calls need; returns the ids the calls will touch. */
  prepare(setup: Executor, n: number): Promise<string[]>;
  calls(ids: string[]): Call[];
  /** The floor: every command the transition's Lua runs for `id`, in its order, as plain commands. */
  plain(pipeline: ChainableCommander, id: string): void;
}

const row = (id: string) => jobKey(QUEUE, id);
const key = (type: KeyType) => queueKey(QUEUE, type);

function minted(n: number): string[] {
  return Array.from({ length: n }, () => minter.mint());
}

async function enqueued(setup: Executor, n: number): Promise<string[]> {
  const ids = minted(n);
  await runChunked(
    setup,
    ids.map((id) => callFor('enqueue', QUEUE, { id, payload: 'payload' })),
  );
  return ids;
}

async function claimed(setup: Executor, n: number, leaseMs = 60_000): Promise<string[]> {
  const ids = await enqueued(setup, n);
  await runChunked(
    setup,
    ids.map(() => callFor('claim', QUEUE, { lease_ms: leaseMs })),
  );
  return ids;
}

/** `move-due.lua` for one due id: the sweeps' floor (batch 1). */
function moveDue(p: ChainableCommander, from: 'schedule' | 'active', id: string): void {
  p.time();
  p.zrangebyscore(key(from), '-inf', Date.now(), 'LIMIT', 0, 1);
  p.zrem(key(from), id);
  p.zadd(key('pending'), 0, id);
  p.hset(row(id), 'state', 'pending');
}

export const WORKLOADS: Record<CoreTransition, Workload> = {
  enqueue: {
    prepare: async (_, n) => minted(n),
    calls: (ids) => ids.map((id) => callFor('enqueue', QUEUE, { id, payload: 'payload' })),
    plain: (p, id) => {
      p.exists(row(id));
      p.hset(row(id), 'state', 'pending', 'attempts', '0', 'payload', 'payload');
      p.zadd(key('pending'), 0, id);
    },
  },
  schedule: {
    prepare: async (_, n) => minted(n),
    calls: (ids) => ids.map((id) => callFor('schedule', QUEUE, { id, payload: 'payload', run_at_ms: LATER })),
    plain: (p, id) => {
      p.exists(row(id));
      p.hset(row(id), 'state', 'scheduled', 'attempts', '0', 'payload', 'payload');
      p.zadd(key('schedule'), LATER, id);
    },
  },
  claim: {
    prepare: enqueued,
    calls: (ids) => ids.map(() => callFor('claim', QUEUE, { lease_ms: 60_000 })),
    // Pending ids all score 0 and sort in mint order, so ZPOPMIN pops `id`.
    plain: (p, id) => {
      p.hget(key('meta'), 'paused');
      p.zpopmin(key('pending'));
      p.hincrby(row(id), 'attempts', 1);
      p.hset(row(id), 'state', 'active');
      p.time();
      p.zadd(key('active'), Date.now() + 60_000, id);
      p.hget(row(id), 'payload');
    },
  },
  complete: {
    prepare: (setup, n) => claimed(setup, n),
    calls: (ids) => ids.map((id) => callFor('complete', QUEUE, { id, token: 1 })),
    plain: (p, id) => {
      p.exists(row(id));
      p.hget(row(id), 'attempts');
      p.zrem(key('active'), id);
      p.del(row(id));
      p.hincrby(key('metrics:completed'), 'count', 1);
    },
  },
  retry: {
    prepare: (setup, n) => claimed(setup, n),
    calls: (ids) =>
      ids.map((id) =>
        callFor('retry', QUEUE, { id, token: 1, delay_ms: 1000, max_attempts: 5, error: 'boom' }),
      ),
    plain: (p, id) => {
      p.exists(row(id));
      p.hget(row(id), 'attempts');
      p.hset(row(id), 'last_error', 'boom');
      p.zrem(key('active'), id);
      p.hget(row(id), 'attempts');
      p.hset(row(id), 'state', 'scheduled');
      p.time();
      p.zadd(key('schedule'), Date.now() + 1000, id);
    },
  },
  promote: {
    prepare: async (setup, n) => {
      const ids = minted(n);
      await runChunked(
        setup,
        ids.map((id) => callFor('schedule', QUEUE, { id, payload: 'payload', run_at_ms: 0 })),
      );
      return ids;
    },
    calls: (ids) => ids.map(() => callFor('promote', QUEUE, { batch: 1 })),
    plain: (p, id) => moveDue(p, 'schedule', id),
  },
  reap: {
    prepare: (setup, n) => claimed(setup, n, 0),
    calls: (ids) => ids.map(() => callFor('reap', QUEUE, { batch: 1 })),
    plain: (p, id) => moveDue(p, 'active', id),
  },
};

export async function runChunked(executor: Executor, calls: Call[]): Promise<void> {
  for (let i = 0; i < calls.length; i += BATCH) {
    const verdicts = await executor.runMany(calls.slice(i, i + BATCH));
    const failure = verdicts.find((verdict) => verdict instanceof Error);
    if (failure) throw failure;
  }
}

export async function runPlain(client: Valkey, workload: Workload, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += BATCH) {
    const pipeline = client.pipeline();
    for (const id of ids.slice(i, i + BATCH)) workload.plain(pipeline, id);
    const replies = (await pipeline.exec()) ?? [];
    const failure = replies.find(([error]) => error);
    if (failure) throw failure[0];
  }
}
