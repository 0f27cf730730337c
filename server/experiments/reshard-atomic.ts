// reshard, atomic mode: a queue's slot moved by Valkey 9's atomic slot migration — one CLUSTER
// MIGRATESLOTS on the source, which snapshots the slot to the target, streams the writes that follow,
// pauses writes for the hand-over and gives the slot away — while the same four probes as the key-by-key
// mode (a moved key, the claim, an enqueue, an EMQ.* call) are sent to the source again and again. The
// source serves every one of them until the hand-over, then answers MOVED: no ASK, no TRYAGAIN. The
// queue is filled with enough jobs that the move takes a visible while; CLUSTER GETSLOTMIGRATIONS is
// read throughout and each state it passes through is shown. Then the slot is moved back the same way
// and the queue deleted. One run at a time on the Valkey 9 cluster.

import { callFor } from '../executors/calls.ts';
import { scriptFor } from '../executors/scripts.ts';
import { TRANSITIONS } from '../executors/transitions.ts';
import { mintJobId, queueKey, rowBase, slot as slotOf } from '../keyspace/index.ts';
import { ownerOf, readShards, type ShardNode } from '../sandbox/cluster-topology.ts';
import type { AtomicRuntime } from './atomic-runtime.ts';
import type { Words } from './route.ts';

/** Jobs put in the reader's queue before the move: enough for a window of a few hundred probes. */
export const ATOMIC_JOBS = 20_000;
/** The longest a move may take before the run gives up on it (and cancels it). */
const MOVE_DEADLINE_MS = 6_000;
const LOCK = 'reshard-atomic';

export interface Probe {
  label: string;
  command: Words;
  /** The node the probe was sent to (`host:port`). */
  node: string;
  /** Its reply (an error reply as its text); during the move, the last one (the MOVED). */
  reply: unknown;
  /** During the move: how many times the source served it before it answered MOVED. */
  served?: number;
  /** During the move: the first reply it got. */
  firstReply?: unknown;
}

export interface Phase {
  name: string;
  /** The slot's owner during the phase (`host:port`). */
  owner: string;
  /** The queue's keys other than its job rows, on each node, and how many keys each holds in the slot. */
  keys: { source: string[]; target: string[] };
  counts: { source: number; target: number };
  probes: Probe[];
}

/** A state CLUSTER GETSLOTMIGRATIONS reported, when it was first seen. */
export interface MigrationState {
  /** Milliseconds since MIGRATESLOTS was sent. */
  atMs: number;
  node: string;
  operation: string;
  state: string;
  message: string;
}

export interface AtomicReshardResult {
  mode: 'atomic';
  /** The server that ran it, as its INFO says (e.g. Valkey 9.1.2). */
  server: string;
  queue: string;
  slot: number;
  from: string;
  to: string;
  jobs: number;
  command: Words;
  phases: Phase[];
  migrations: MigrationState[];
  /** From MIGRATESLOTS until every node agreed on the new owner. */
  moveMs: number;
  /** Every key of the slot arrived: the target holds what the source held plus the probes' writes. */
  moved: { before: number; after: number; expected: number; leftOnSource: number; together: boolean };
  restore: { command: Words; owner: string; back: boolean; moveMs: number };
  leftBehind: number;
}

interface Runner {
  runtime: AtomicRuntime;
  slot: number;
  everyone: ShardNode[];
}

function replyText(error: unknown): string {
  if (error instanceof Error && error.name === 'ReplyError') return error.message;
  throw error;
}

/** Sends `command` as the reader to one node; an error reply comes back as its text. */
async function send(runtime: AtomicRuntime, node: string, command: Words): Promise<unknown> {
  return runtime
    .clusterNode(node)
    .call(command[0]!, ...command.slice(1))
    .catch(replyText);
}

function probes(queue: string, enqueuedId: string): Array<{ label: string; command: Words }> {
  const claim = callFor('claim', queue, { lease_ms: 30_000 });
  const enqueue = callFor('enqueue', queue, { id: enqueuedId, payload: '{"probe":true}' });
  const native = ['EMQ.CLAIM', String(claim.keys.length), ...claim.keys, ...claim.args];
  return [
    { label: 'a moved key', command: ['ZRANGE', queueKey(queue, 'pending'), '0', '0'] },
    { label: 'the claim', command: ['EVALSHA', scriptFor('claim').sha, '3', ...claim.keys, ...claim.args] },
    {
      label: 'an enqueue',
      command: ['EVALSHA', scriptFor('enqueue').sha, '2', ...enqueue.keys, ...enqueue.args],
    },
    { label: `an ${TRANSITIONS.claim.command} call`, command: native },
  ];
}

const REDIRECTED = /^(MOVED|ASK|TRYAGAIN)\b/;

async function countIn(runtime: AtomicRuntime, node: string, n: number): Promise<number> {
  return Number(await runtime.clusterAdminNode(node).call('CLUSTER', 'COUNTKEYSINSLOT', n));
}

/** The source deletes a slot it gave away in the background: its count once that is done (or 2 s). */
async function drained(runtime: AtomicRuntime, node: string, n: number): Promise<number> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const left = await countIn(runtime, node, n);
    if (left === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The queue's keys other than its rows, as a node holds them (a source that gave the slot away holds none). */
async function namedKeys(runtime: AtomicRuntime, node: string, queue: string): Promise<string[]> {
  const admin = runtime.clusterAdminNode(node);
  const fixed = (['pending', 'active', 'schedule', 'dead', 'meta'] as const).map((t) => queueKey(queue, t));
  // EXISTS on a node that no longer owns the slot answers MOVED: it holds none of them then.
  const found = await Promise.all(fixed.map((key) => admin.exists(key).catch(() => 0)));
  return fixed.filter((_, i) => found[i] === 1);
}

async function phase(
  run: Runner,
  name: string,
  queue: string,
  source: ShardNode,
  target: ShardNode,
  owner: ShardNode,
  list: Array<{ label: string; command: Words }>,
): Promise<Phase> {
  const probed: Probe[] = [];
  for (const { label, command } of list) {
    probed.push({
      label,
      command,
      node: owner.address,
      reply: await send(run.runtime, owner.address, command),
    });
  }
  const [sourceKeys, targetKeys, sourceCount, targetCount] = await Promise.all([
    namedKeys(run.runtime, source.address, queue),
    namedKeys(run.runtime, target.address, queue),
    countIn(run.runtime, source.address, run.slot),
    countIn(run.runtime, target.address, run.slot),
  ]);
  return {
    name,
    owner: owner.address,
    keys: { source: sourceKeys, target: targetKeys },
    counts: { source: sourceCount, target: targetCount },
    probes: probed,
  };
}

/** The migration jobs a node reports, as name → fields. */
async function migrations(runtime: AtomicRuntime, node: string): Promise<Array<Record<string, string>>> {
  const reply = (await runtime.clusterAdminNode(node).call('CLUSTER', 'GETSLOTMIGRATIONS')) as unknown[][];
  return reply.map((flat) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = String(flat[i + 1]);
    return fields;
  });
}

const FINISHED = new Set(['success', 'failed', 'cancelled']);

/**
 * Sends MIGRATESLOTS for the run's slot from `source` to `target`, reads both nodes' migration jobs
 * until the export finishes (recording each new state), and meanwhile runs `during` against the
 * source. Resolves once every node agrees the target owns the slot.
 */
async function migrateAtomically(
  run: Runner,
  source: ShardNode,
  target: ShardNode,
  during?: (done: () => boolean) => Promise<void>,
): Promise<{ command: Words; states: MigrationState[]; ms: number }> {
  const { runtime, slot: n } = run;
  const known = new Set((await migrations(runtime, source.address)).map((job) => job.name));
  const command: Words = ['CLUSTER', 'MIGRATESLOTS', 'SLOTSRANGE', String(n), String(n), 'NODE', target.id];
  const started = Date.now();
  await runtime.clusterAdminNode(source.address).call(command[0]!, ...command.slice(1));
  const states: MigrationState[] = [];
  const seen = new Set<string>();
  let exportState = '';
  let job = '';
  const finished = () => FINISHED.has(exportState);
  const watching = (async () => {
    while (!finished()) {
      if (Date.now() - started > MOVE_DEADLINE_MS) {
        await runtime
          .clusterAdminNode(source.address)
          .call('CLUSTER', 'CANCELSLOTMIGRATIONS')
          .catch(() => {});
        throw new Error(`the atomic move of slot ${n} did not finish within ${MOVE_DEADLINE_MS / 1000} s`);
      }
      for (const node of [source, target]) {
        for (const entry of await migrations(runtime, node.address)) {
          if (known.has(entry.name ?? '') && node === source) continue;
          if (node === source) job ||= entry.name ?? '';
          if (entry.name !== job) continue;
          const key = `${node.address} ${entry.operation} ${entry.state}`;
          if (!seen.has(key)) {
            seen.add(key);
            states.push({
              atMs: Date.now() - started,
              node: node.address,
              operation: entry.operation ?? '',
              state: entry.state ?? '',
              message: entry.message ?? '',
            });
          }
          if (node === source) exportState = entry.state ?? '';
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (exportState !== 'success') throw new Error(`the atomic move of slot ${n} ended ${exportState}`);
  })();
  await Promise.all([watching, during?.(finished)]);
  await waitOwner(run, target);
  return { command, states, ms: Date.now() - started };
}

async function waitOwner(run: Runner, owner: ShardNode): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const views = await Promise.all(
      run.everyone.map((node) => readShards(run.runtime.clusterAdminNode(node.address))),
    );
    if (views.every((shards) => ownerOf(shards, run.slot)?.id === owner.id)) return;
    if (Date.now() > deadline)
      throw new Error(`the nodes never agreed that ${owner.address} owns slot ${run.slot}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Each probe sent to the source over and over while the slot moves, until it answers a redirection. */
async function probeWhileMoving(
  run: Runner,
  source: ShardNode,
  list: Array<{ label: string; command: Words }>,
  done: () => boolean,
): Promise<Probe[]> {
  const results: Probe[] = list.map(({ label, command }) => ({
    label,
    command,
    node: source.address,
    reply: null,
    served: 0,
  }));
  const deadline = Date.now() + MOVE_DEADLINE_MS + 2000;
  while (Date.now() < deadline && results.some((probe) => !REDIRECTED.test(String(probe.reply)))) {
    for (const probe of results) {
      if (REDIRECTED.test(String(probe.reply))) continue;
      const reply = await send(run.runtime, source.address, probe.command);
      if (!REDIRECTED.test(String(reply))) probe.served! += 1;
      probe.firstReply ??= reply;
      probe.reply = reply;
    }
    // Once the export says success, one more round sees every probe redirected.
    if (done() && results.every((probe) => REDIRECTED.test(String(probe.reply)))) break;
  }
  return results;
}

/** Puts `jobs` jobs in the queue with the enqueue script, pipelined on the slot's owner. */
async function fill(run: Runner, owner: ShardNode, queue: string, jobs: number): Promise<void> {
  const admin = run.runtime.clusterAdminNode(owner.address);
  const sha = scriptFor('enqueue').sha;
  for (let done = 0; done < jobs;) {
    const batch = admin.pipeline();
    const size = Math.min(2000, jobs - done);
    for (let i = 0; i < size; i += 1) {
      const call = callFor('enqueue', queue, { id: mintJobId(), payload: `{"n":${done + i}}` });
      batch.call('EVALSHA', sha, '2', ...call.keys, ...call.args);
    }
    const replies = (await batch.exec()) ?? [];
    const failed = replies.find(([error]) => error);
    if (failed) throw failed[0];
    done += size;
  }
}

/** Deletes every key of the queue from the slot's owner, in batches; answers how many outlived it. */
export async function cleanQueue(runtime: AtomicRuntime, queue: string, n: number): Promise<number> {
  const owner = ownerOf(await readShards(runtime.clusterAdmin), n);
  if (!owner) return 0;
  const admin = runtime.clusterAdminNode(owner.address);
  const prefix = rowBase(queue).slice(0, -'job:'.length);
  for (let round = 0; round < 100; round += 1) {
    const keys = ((await admin.call('CLUSTER', 'GETKEYSINSLOT', n, 2000)) as string[]).filter((key) =>
      key.startsWith(prefix),
    );
    if (keys.length === 0) return 0;
    await admin.unlink(...keys);
  }
  return ((await admin.call('CLUSTER', 'GETKEYSINSLOT', n, 2000)) as string[]).length;
}

/** A migration a failed run may have left: cancelled, so the next run starts from a stable slot. */
async function settle(runtime: AtomicRuntime, everyone: ShardNode[]): Promise<void> {
  for (const node of everyone) {
    const running = (await migrations(runtime, node.address)).some((job) => !FINISHED.has(job.state ?? ''));
    if (running) await runtime.clusterAdminNode(node.address).call('CLUSTER', 'CANCELSLOTMIGRATIONS');
  }
}

export async function runAtomicReshard(
  runtime: AtomicRuntime,
  input: { queue: string },
  jobs = ATOMIC_JOBS,
): Promise<AtomicReshardResult> {
  const { queue } = input;
  const n = slotOf(queueKey(queue, 'pending'));
  return runtime.locks.with(LOCK, async () => {
    let everyone = await readShards(runtime.clusterAdmin);
    await settle(runtime, everyone);
    everyone = await readShards(runtime.clusterAdmin);
    const source = ownerOf(everyone, n);
    if (!source) throw new Error(`no node of the Valkey 9 cluster serves slot ${n}`);
    const target = everyone[(everyone.indexOf(source) + 1) % everyone.length]!;
    const run: Runner = { runtime, slot: n, everyone };
    let leftBehind = 0;
    await cleanQueue(runtime, queue, n);
    // The probes send EVALSHA as they are, so both ends must hold the scripts (a node restarted by its
    // supervisor comes back without them).
    for (const node of [source, target]) {
      for (const transition of ['enqueue', 'claim'] as const) {
        await runtime.clusterAdminNode(node.address).call('SCRIPT', 'LOAD', scriptFor(transition).source);
      }
    }
    try {
      await fill(run, source, queue, jobs);
      const list = probes(queue, mintJobId());
      const before = await phase(run, 'before', queue, source, target, source, list);
      const keysBefore = before.counts.source;

      let moving: Probe[] = [];
      const move = await migrateAtomically(run, source, target, async (done) => {
        moving = await probeWhileMoving(run, source, list, done);
      });
      const leftOnSource = await drained(runtime, source.address, n);
      const [sourceKeys, targetKeys, afterCount] = await Promise.all([
        namedKeys(runtime, source.address, queue),
        namedKeys(runtime, target.address, queue),
        countIn(runtime, target.address, n),
      ]);
      const during: Phase = {
        name: 'moving',
        owner: `${source.address} until the hand-over, then ${target.address}`,
        keys: { source: sourceKeys, target: targetKeys },
        counts: { source: leftOnSource, target: afterCount },
        probes: moving,
      };
      const after = await phase(run, 'after', queue, source, target, target, list);

      const restoreMove = await migrateAtomically(run, target, source);
      const back = ownerOf(await readShards(runtime.clusterAdmin), n);
      return {
        mode: 'atomic',
        server: `Valkey ${runtime.version}`,
        queue,
        slot: n,
        from: source.address,
        to: target.address,
        jobs,
        command: move.command,
        phases: [before, during, after],
        migrations: move.states,
        moveMs: move.ms,
        moved: {
          before: keysBefore,
          after: afterCount,
          // The probes' writes during the move add no key: the enqueue repeats one id (a duplicate after
          // its first run, before the move) and the claims move jobs between sets that exist already.
          expected: keysBefore,
          leftOnSource,
          together: leftOnSource === 0 && afterCount === keysBefore,
        },
        restore: {
          command: restoreMove.command,
          owner: back?.address ?? 'none',
          back: back?.id === source.id,
          moveMs: restoreMove.ms,
        },
        leftBehind,
      };
    } finally {
      leftBehind = await cleanQueue(runtime, queue, n).catch(() => -1);
    }
  });
}
