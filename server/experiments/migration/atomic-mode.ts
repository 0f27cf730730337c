// reshard, atomic mode: a queue's slot moved by Valkey 9's atomic slot migration — one CLUSTER
// MIGRATESLOTS on the source, which snapshots the slot to the target, streams the writes that follow,
// pauses writes for the hand-over and gives the slot away — while the same probes as the key-by-key mode
// (a moved key, the claim, an enqueue, an EMQ.* call) are sent to the source again and again. The source
// serves every one of them until the hand-over, then answers MOVED: no ASK, no TRYAGAIN. The queue is
// filled with enough jobs that the move takes a visible while; CLUSTER GETSLOTMIGRATIONS is read
// throughout and each state it passes through is kept. A cluster client's claims, sent meanwhile, show
// what a client meets. Then the slot is moved back the same way and the queue deleted. The answer has the
// keys mode's shape (contract/experiments/migration.ts). One run at a time on the Valkey 9 cluster.
// The phases, in the order the page shows them, are the steps below (phase-walk.ts walks them).

import { callFor } from '../../contract/calls.ts';
import { scriptFor } from '../../executors/scripts.ts';
import type { Call } from '../../contract/transitions.ts';
import { jobKey, mintJobId, queueKeys, queueSlot } from '../../contract/keyspace/index.ts';
import { ownerOf, readShards, type ShardNode } from '../../sandbox/cluster-topology.ts';
import { ATOMIC_RUN_LOCK, type AtomicRuntime } from '../../explorer/atomic-runtime.ts';
import {
  DEFAULT_MIGRATION_SIZE,
  isErrorReply,
  type ClientRetries,
  type MigrationNode,
  type MigrationProbe,
  type MigrationResult,
  type ProbeReply,
  type SlotMigrationState,
} from '../../contract/experiments/migration.ts';
import { evalWords, nativeWords } from './call-words.ts';
import { migrationAnswer, planMove } from './plan.ts';
import { asProbeReply, probe } from './probe.ts';
import { stamp, tenths } from './clock.ts';
import { fillQueue } from './fill.ts';
import { cleanQueueEverywhere } from './clean-queue.ts';
import { startWorker, WORKER_PAUSE_MS, type Worker, type WorkerRun } from './worker.ts';
import { settledWithin } from '../../run-deadline.ts';
import { ATOMIC_MOVE_DEADLINE_MS } from '../../settings/bounds.ts';
import { atomicCluster, type MigrationCluster } from './on-cluster.ts';
import { PhaseWalk, type ProbeAsk } from './phase-walk.ts';

/**
 * Between two rounds of the probes sent while the slot moves, as the worker pauses between claims: a
 * redirection is seen within a few ms, without a round trip after round trip for the whole move.
 */
const PROBE_PAUSE_MS = WORKER_PAUSE_MS;
const FINISHED = new Set(['success', 'failed', 'cancelled']);
const REDIRECTED = /^(MOVED|ASK|TRYAGAIN)\b/;

const errorText = (reply: ProbeReply): string => (isErrorReply(reply) ? reply.error : '');
const redirected = (reply: ProbeReply) => REDIRECTED.test(errorText(reply));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One atomic move of the run's slot, on `on`, from `source` to `target`. */
interface Move {
  on: MigrationCluster;
  slot: number;
  everyone: ShardNode[];
  source: MigrationNode;
  target: MigrationNode;
}

/** What an atomic move measured: each migration state when first seen, and when it began and ended. */
interface Moved {
  states: SlotMigrationState[];
  ms: number;
  startedAt: number;
  endedAt: number;
}

/** What the probes sent during a move can read of it: whether the watching is over, and how it ended. */
interface MoveState {
  over(): boolean;
  succeeded(): boolean;
}

async function countIn(on: MigrationCluster, node: string, n: number): Promise<number> {
  return Number(await on.admin(node).call('CLUSTER', 'COUNTKEYSINSLOT', n));
}

/** The migration jobs a node reports, each as its fields. */
async function migrations(on: MigrationCluster, node: string): Promise<Array<Record<string, string>>> {
  const reply = (await on.admin(node).call('CLUSTER', 'GETSLOTMIGRATIONS')) as unknown[][];
  return reply.map((flat) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = String(flat[i + 1]);
    return fields;
  });
}

/**
 * Sends MIGRATESLOTS for the slot (recorded), reads both nodes' migration jobs until the export ends
 * (keeping each new state), and meanwhile runs `during` against the source. Resolves once every node
 * names the target.
 */
async function migrateAtomically(
  { on, slot: n, everyone, source, target }: Move,
  record: PhaseWalk['record'],
  during?: (move: MoveState) => Promise<void>,
): Promise<Moved> {
  const known = new Set((await migrations(on, source.address)).map((job) => job.name));
  const command = ['CLUSTER', 'MIGRATESLOTS', 'SLOTSRANGE', String(n), String(n), 'NODE', target.id];
  const started = stamp();
  const reply = await on.admin(source.address).call(command[0]!, ...command.slice(1));
  record({ node: source.address, command, reply, sentAt: started });
  const states: SlotMigrationState[] = [];
  const seen = new Set<string>();
  let exportState = '';
  let job = '';
  const watching = (async () => {
    while (!FINISHED.has(exportState)) {
      if (stamp() - started > ATOMIC_MOVE_DEADLINE_MS) {
        await on
          .admin(source.address)
          .call('CLUSTER', 'CANCELSLOTMIGRATIONS')
          .catch(() => {});
        throw new Error(
          `the atomic move of slot ${n} did not finish within ${ATOMIC_MOVE_DEADLINE_MS / 1000} s`,
        );
      }
      for (const node of [source, target]) {
        for (const entry of await migrations(on, node.address)) {
          if (node === source && known.has(entry.name ?? '')) continue;
          if (node === source) job ||= entry.name ?? '';
          if (!job || entry.name !== job) continue;
          const { operation = '', state = '' } = entry;
          if (!seen.has(`${node.address} ${operation} ${state}`)) {
            seen.add(`${node.address} ${operation} ${state}`);
            states.push({ atMs: tenths(stamp() - started), node: node.address, operation, state });
          }
          if (node === source) exportState = state;
        }
      }
      await pause(5);
    }
    if (exportState !== 'success') throw new Error(`the atomic move of slot ${n} ended ${exportState}`);
  })();
  let over = false;
  const watched = watching.finally(() => {
    over = true;
  });
  // Both end before this does, failed or not: nothing of the move's probes writes after it returns.
  const [watchedOutcome, duringOutcome] = await Promise.allSettled([
    watched,
    during?.({ over: () => over, succeeded: () => exportState === 'success' }),
  ]);
  if (watchedOutcome.status === 'rejected') throw watchedOutcome.reason;
  if (duringOutcome.status === 'rejected') throw duringOutcome.reason;
  // Every node names the target, or the move failed.
  const deadline = Date.now() + 5000;
  for (;;) {
    const views = await Promise.all(everyone.map((node) => readShards(on.admin(node.address))));
    if (views.every((shards) => ownerOf(shards, n)?.id === target.id)) break;
    if (Date.now() > deadline)
      throw new Error(`the nodes never agreed that ${target.address} owns slot ${n}`);
    await pause(5);
  }
  const endedAt = stamp();
  return { states, ms: tenths(endedAt - started), startedAt: started, endedAt };
}

/** Each probe sent to the source over and over while the slot moves, until it answers a redirection. */
async function probeWhileMoving(
  on: MigrationCluster,
  list: ProbeAsk[],
  move: MoveState,
): Promise<MigrationProbe[]> {
  const results: MigrationProbe[] = list.map(({ node, label, command }) => ({
    label,
    command,
    node,
    reply: null,
    served: 0,
    atMs: 0,
  }));
  const deadline = Date.now() + ATOMIC_MOVE_DEADLINE_MS + 2000;
  while (Date.now() < deadline && results.some((asked) => !redirected(asked.reply))) {
    // A move that failed never redirects them: stop with it.
    if (move.over() && !move.succeeded()) break;
    for (const asked of results) {
      if (redirected(asked.reply)) continue;
      const { reply, atMs } = await probe(on.reader(asked.node), asked.node, asked.label, asked.command);
      if (!redirected(reply)) asked.served! += 1;
      // On the time axis where it was first sent: the round-robin keeps the list's order.
      if (asked.firstReply === undefined) {
        asked.firstReply = reply;
        asked.atMs = atMs;
      }
      asked.reply = reply;
    }
    await pause(PROBE_PAUSE_MS);
  }
  return results;
}

/**
 * The cluster client's claim as the keys mode shows one: the worker's first (served by the source), and
 * the one that met the hand-over (MOVED, then served by the target), each attempt per node.
 */
function clientOf(run: WorkerRun, claim: Call): ClientRetries {
  const moved = run.calls.find((call) =>
    call.wire.some((entry) => /^MOVED\b/.test(errorText(entry.reply as ProbeReply))),
  );
  const first = run.calls[0];
  const shown = [first, ...(moved && moved !== first ? [moved] : [])].filter((call) => call !== undefined);
  const wire = shown.flatMap((call) =>
    call.wire.map((entry) => ({
      node: entry.node ?? '',
      line: entry.line,
      reply: entry.reply as ProbeReply,
    })),
  );
  return { command: evalWords(claim), wire, reply: (moved ?? run.calls.at(-1))?.reply ?? null };
}

/** A migration a failed run may have left is cancelled, so the next run starts from a stable slot. */
async function settle(on: MigrationCluster, everyone: ShardNode[]): Promise<boolean> {
  let clean = true;
  for (const node of everyone) {
    const running = (await migrations(on, node.address)).some((job) => !FINISHED.has(job.state ?? ''));
    if (running) {
      clean = false;
      await on.admin(node.address).call('CLUSTER', 'CANCELSLOTMIGRATIONS');
    }
  }
  return clean;
}

export async function runAtomicReshard(
  runtime: AtomicRuntime,
  input: { queue: string; size?: number },
): Promise<MigrationResult> {
  const on = atomicCluster(runtime);
  const { queue } = input;
  const jobCount = input.size ?? DEFAULT_MIGRATION_SIZE;
  const n = queueSlot(queue);
  return runtime.locks.line.with(ATOMIC_RUN_LOCK, async () => {
    await settle(on, await on.shards());
    const everyone = await on.shards();
    const owner = ownerOf(everyone, n);
    if (!owner) throw new Error(`no node of the Valkey 9 cluster serves slot ${n}`);
    const plan = planMove(queue, n, everyone, owner.id);
    const { source, target } = plan;
    // Every key of the queue deleted from the slot's owner; answers how many outlived it.
    const cleanQueue = async () => {
      const now = ownerOf(await on.shards(), n);
      return now ? cleanQueueEverywhere([on.admin(now.address)], queue, n) : 0;
    };
    await cleanQueue();
    // The probes send EVALSHA as they are, so both ends hold the scripts (a node restarted by its
    // supervisor comes back without them).
    for (const node of [source, target]) {
      for (const transition of ['enqueue', 'claim'] as const) {
        await on.admin(node.address).call('SCRIPT', 'LOAD', scriptFor(transition).source);
      }
    }
    // The queue's worker, on a client of its own (so its slot map is this run's alone).
    let worker: Worker | null = null;
    let cleaned = false;
    try {
      const jobs = (await fillQueue(on.admin(source.address), queue, jobCount)).slice(0, 3);
      const claim = callFor('claim', queue, { lease_ms: 30_000 });
      const enqueue = () => callFor('enqueue', queue, { id: mintJobId(), payload: '{"probe":true}' });
      const ask = (node: MigrationNode, label: string, command: string[]): ProbeAsk => ({
        node: node.address,
        label,
        command,
      });
      const [read, claimed, enqueued, module] = [
        ask(source, 'a key of the queue (its oldest row)', ['HGETALL', jobKey(queue, jobs[0]!)]),
        ask(source, 'the scripted claim (declares the row base, never a key)', evalWords(claim)),
        ask(source, 'an enqueue (a new row, and the pending set)', evalWords(enqueue())),
        ask(source, 'the module’s enqueue', nativeWords(enqueue())),
      ];
      const walk = new PhaseWalk(
        on,
        plan,
        queueKeys(queue).map(({ key }) => key),
      );
      const move = { on, slot: n, everyone, source, target };
      let before = 0;
      let after = 0;
      let leftOnSource = 0;
      let moving: MigrationProbe[] = [];
      let there: Moved;
      let back: Moved;
      let working: Promise<WorkerRun>;
      let worked: WorkerRun;
      await walk.through('atomic', {
        // The owner serves the read, the claim and the module's enqueue (the module is reached, and
        // refuses cluster mode). The scripted enqueue waits for the move, so its row is new then.
        stable: {
          summary: () =>
            `slot ${n} is served by ${source.name} alone; the queue holds ${jobCount.toLocaleString('en')} jobs`,
          owner: source,
          probesFirst: true,
          probes: () => [read, claimed, module],
        },
        moving: {
          summary: () =>
            `${source.name} copies slot ${n} to ${target.name} in the background and serves it meanwhile; each call was sent again and again until it was redirected`,
          owner: source,
          async run() {
            before = await countIn(on, source.address, n);
            worker = await settledWithin(
              5000,
              () => new Error('the run’s cluster client did not connect in 5 s'),
              startWorker(on.cluster, queue),
            );
            // Each node's count while the copy is under way: read once the probes have had their first answers.
            let midMove = walk.phases[0]!.keysByNode;
            there = await migrateAtomically(move, walk.record, async (state) => {
              const probing = probeWhileMoving(on, [read, claimed, enqueued, module], state);
              midMove = await walk.counts();
              moving = await probing;
            });
            // The move is over: the worker claims on until the new owner serves it, then stops.
            working = worker.stop({ untilServed: true });
            leftOnSource = await drained(on, source.address, n);
            after = await countIn(on, target.address, n);
            // As the command went out: the copy arriving on the target is not a client's to see until the end.
            return { atMs: there.startedAt, keys: walk.phases[0]!.keys, keysByNode: midMove, probes: moving };
          },
        },
        owner: {
          summary: () =>
            `every node names ${target.name} the owner of slot ${n}, ${there.ms} ms after MIGRATESLOTS`,
          owner: target,
          run: async () => ({ atMs: there.endedAt }),
          probes: () => [
            ask(target, 'the scripted claim on the new owner', evalWords(claim)),
            ask(source, 'the former owner redirects', evalWords(claim)),
            ask(target, 'the module, reached on the new owner', module.command),
          ],
        },
        back: {
          summary: () => `the slot moved back to ${source.name} the same way, in ${back.ms} ms`,
          owner: source,
          async run() {
            worked = await working;
            worker = null;
            back = await migrateAtomically({ ...move, source: target, target: source }, walk.record);
            return { atMs: back.endedAt };
          },
        },
      });
      const owners = await Promise.all(
        everyone.map(async (node) => ownerOf(await readShards(on.admin(node.address)), n)?.id),
      );
      const clean = owners.every((id) => id === source.id) && (await settle(on, everyone));
      // The probes' only new key: the enqueue's row, written the first time it was served (later runs
      // were duplicates); the claims moved jobs between sets that existed already.
      const expected = before + (moving[2]!.served! > 0 ? 1 : 0);
      const leftBehind = await cleanQueue();
      cleaned = true;
      return migrationAnswer(plan, {
        mode: 'atomic' as const,
        server: await on.version(),
        jobs,
        jobCount,
        ...walk.timed(worked!, there!.endedAt),
        client: clientOf(worked!, claim),
        clean,
        leftBehind,
        atomic: {
          jobCount,
          states: there!.states,
          moveMs: there!.ms,
          keys: { before, after, expected, leftOnSource, together: leftOnSource === 0 && after === expected },
          backMs: back!.ms,
        },
      });
    } finally {
      // A failed run cleans up after its last writer: the probes ended with the move (migrateAtomically
      // waits for them), the worker stops here; then the queue goes from every node that answers.
      await (worker as Worker | null)?.stop();
      if (!cleaned)
        for (const node of everyone)
          await cleanQueueEverywhere([on.admin(node.address)], queue, n).catch(() => {});
    }
  });
}

/** The source deletes a slot it gave away in the background: its count once that is done (or 2 s). */
async function drained(on: MigrationCluster, node: string, n: number): Promise<number> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const left = await countIn(on, node, n);
    if (left === 0 || Date.now() > deadline) return left;
    await pause(5);
  }
}
