// reshard, atomic mode: a queue's slot moved by Valkey 9's atomic slot migration — one CLUSTER
// MIGRATESLOTS on the source, which snapshots the slot to the target, streams the writes that follow,
// pauses writes for the hand-over and gives the slot away — while the same probes as the key-by-key mode
// (a moved key, the claim, an enqueue, an EMQ.* call) are sent to the source again and again. The source
// serves every one of them until the hand-over, then answers MOVED: no ASK, no TRYAGAIN. The queue is
// filled with enough jobs that the move takes a visible while; CLUSTER GETSLOTMIGRATIONS is read
// throughout and each state it passes through is kept. A cluster client's claims, sent meanwhile, show
// what a client meets. Then the slot is moved back the same way and the queue deleted. The answer has the
// keys mode's shape (contract/experiments/migration.ts). One run at a time on the Valkey 9 cluster.

import { callFor } from '../../contract/calls.ts';
import { scriptFor } from '../../executors/scripts.ts';
import { isReplyError } from '../../executors/wire-error.ts';
import type { Call } from '../../contract/transitions.ts';
import { jobKey, mintJobId, queueKeys, queueSlot } from '../../contract/keyspace/index.ts';
import { ownerOf, readShards, type ShardNode } from '../../sandbox/cluster-topology.ts';
import type { AtomicGrant } from '../../explorer/grants.ts';
import { deleteQueueKeys, deleteQueueKeysOn } from '../../cluster/queue-keys.ts';
import { FINISHED, slotMigrations } from '../../cluster/slot-migrations.ts';
import {
  DEFAULT_MIGRATION_SIZE,
  isErrorReply,
  type ClientRetries,
  type MigrationCommand,
  type MigrationNode,
  type MigrationPhase,
  type MigrationProbe,
  type MigrationResult,
  type ProbeReply,
  type SlotMigrationState,
} from '../../contract/experiments/migration.ts';
import { evalWords, nativeWords } from './call-words.ts';
import { migrationAnswer, planMove } from './plan.ts';
import { asProbeReply } from './probe.ts';
import { sinceMoveStart, stamp, tenths } from './clock.ts';
import { fillQueue } from './fill.ts';
import { startWorker, WORKER_PAUSE_MS, workerTimeline, type Worker, type WorkerRun } from './worker.ts';
import { settledWithin } from '../../run-deadline.ts';
import { keysByNode, repliesByNode } from './phase-counts.ts';
import { ATOMIC_MOVE_DEADLINE_MS } from '../../settings/bounds.ts';

/**
 * Between two rounds of the probes sent while the slot moves, as the worker pauses between claims: a
 * redirection is seen within a few ms, without a round trip after round trip for the whole move.
 */
const PROBE_PAUSE_MS = WORKER_PAUSE_MS;
const REDIRECTED = /^(MOVED|ASK|TRYAGAIN)\b/;

interface Runner {
  runtime: AtomicGrant;
  slot: number;
  everyone: ShardNode[];
}

const errorText = (reply: ProbeReply): string => (isErrorReply(reply) ? reply.error : '');
const redirected = (reply: ProbeReply) => REDIRECTED.test(errorText(reply));

/** Sends `command` as the reader to one node on a plain connection; an error reply is the answer. */
async function ask(
  runtime: AtomicGrant,
  node: string,
  label: string,
  command: string[],
): Promise<MigrationProbe> {
  const atMs = stamp();
  let reply: ProbeReply;
  try {
    reply = asProbeReply(await runtime.clusterNode(node).call(command[0]!, ...command.slice(1)));
  } catch (error) {
    if (!isReplyError(error)) throw error;
    reply = { error: error.message };
  }
  return { label, command, node, reply, atMs };
}

async function countIn(runtime: AtomicGrant, node: string, n: number): Promise<number> {
  return Number(await runtime.clusterAdminNode(node).call('CLUSTER', 'COUNTKEYSINSLOT', n));
}

/** The source deletes a slot it gave away in the background: its count once that is done (or 2 s). */
async function drained(runtime: AtomicGrant, node: string, n: number): Promise<number> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const left = await countIn(runtime, node, n);
    if (left === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The queue's keys other than its rows (twenty thousand rows are counted, not listed). */
async function namedKeys(runtime: AtomicGrant, node: string, queue: string): Promise<string[]> {
  const admin = runtime.clusterAdminNode(node);
  const fixed = queueKeys(queue).map(({ key }) => key);
  // A node that no longer serves the slot answers MOVED to EXISTS: it holds none of them.
  const found = await Promise.all(fixed.map((key) => admin.exists(key).catch(() => 0)));
  return fixed.filter((_, i) => found[i] === 1);
}

/** The migration jobs a node reports, each as its fields. */
async function migrations(runtime: AtomicGrant, node: string): Promise<Array<Record<string, string>>> {
  return slotMigrations(runtime.clusterAdminNode(node));
}

/** What the probes sent during a move can read of it: the export's end, and the watching's end. */
interface MoveState {
  /** The watching is over: the export succeeded, or the move failed. */
  over(): boolean;
  /** The export reported success. */
  succeeded(): boolean;
}

/**
 * Sends MIGRATESLOTS for the run's slot from `source` to `target`, reads both nodes' migration jobs
 * until the export ends (keeping each new state), and meanwhile runs `during` against the source.
 * Resolves once every node names the target.
 */
async function migrateAtomically(
  run: Runner,
  source: MigrationNode,
  target: MigrationNode,
  during?: (move: MoveState) => Promise<void>,
): Promise<{
  step: MigrationCommand;
  states: SlotMigrationState[];
  ms: number;
  startedAt: number;
  endedAt: number;
}> {
  const { runtime, slot: n } = run;
  const known = new Set((await migrations(runtime, source.address)).map((job) => job.name));
  const command = ['CLUSTER', 'MIGRATESLOTS', 'SLOTSRANGE', String(n), String(n), 'NODE', target.id];
  const started = stamp();
  const reply = asProbeReply(
    await runtime.clusterAdminNode(source.address).call(command[0]!, ...command.slice(1)),
  );
  const states: SlotMigrationState[] = [];
  const seen = new Set<string>();
  let exportState = '';
  let job = '';
  const finished = () => FINISHED.has(exportState);
  const watching = (async () => {
    while (!finished()) {
      if (stamp() - started > ATOMIC_MOVE_DEADLINE_MS) {
        await runtime
          .clusterAdminNode(source.address)
          .call('CLUSTER', 'CANCELSLOTMIGRATIONS')
          .catch(() => {});
        throw new Error(
          `the atomic move of slot ${n} did not finish within ${ATOMIC_MOVE_DEADLINE_MS / 1000} s`,
        );
      }
      for (const node of [source, target]) {
        for (const entry of await migrations(runtime, node.address)) {
          if (node === source && known.has(entry.name ?? '')) continue;
          if (node === source) job ||= entry.name ?? '';
          if (!job || entry.name !== job) continue;
          const operation = entry.operation ?? '';
          const state = entry.state ?? '';
          if (!seen.has(`${node.address} ${operation} ${state}`)) {
            seen.add(`${node.address} ${operation} ${state}`);
            states.push({ atMs: tenths(stamp() - started), node: node.address, operation, state });
          }
          if (node === source) exportState = state;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
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
  await waitOwner(run, target);
  const endedAt = stamp();
  return {
    step: { node: source.address, command, reply, atMs: started },
    states,
    ms: tenths(endedAt - started),
    startedAt: started,
    endedAt,
  };
}

async function waitOwner(run: Runner, owner: MigrationNode): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const views = await Promise.all(
      run.everyone.map((node) => readShards(run.runtime.clusterAdminNode(node.address))),
    );
    if (views.every((shards) => ownerOf(shards, run.slot)?.id === owner.id)) return;
    if (Date.now() > deadline)
      throw new Error(`the nodes never agreed that ${owner.address} owns slot ${run.slot}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Each probe sent to the source over and over while the slot moves, until it answers a redirection. */
async function probeWhileMoving(
  run: Runner,
  source: MigrationNode,
  list: Array<{ label: string; command: string[] }>,
  move: MoveState,
): Promise<MigrationProbe[]> {
  const results: MigrationProbe[] = list.map(({ label, command }) => ({
    label,
    command,
    node: source.address,
    reply: null,
    served: 0,
    atMs: 0,
  }));
  const deadline = Date.now() + ATOMIC_MOVE_DEADLINE_MS + 2000;
  while (Date.now() < deadline && results.some((probe) => !redirected(probe.reply))) {
    // A move that failed never redirects them: stop with it.
    if (move.over() && !move.succeeded()) break;
    for (const probe of results) {
      if (redirected(probe.reply)) continue;
      const { reply, atMs } = await ask(run.runtime, source.address, probe.label, probe.command);
      if (!redirected(reply)) probe.served! += 1;
      // On the time axis where it was first sent: the round-robin keeps the list's order.
      if (probe.firstReply === undefined) {
        probe.firstReply = reply;
        probe.atMs = atMs;
      }
      probe.reply = reply;
    }
    await new Promise((resolve) => setTimeout(resolve, PROBE_PAUSE_MS));
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

/** Deletes every key of the queue from the slot's owner, in batches; answers how many outlived it. */
export async function cleanQueue(runtime: AtomicGrant, queue: string, n: number): Promise<number> {
  const owner = ownerOf(await runtime.shards(), n);
  if (!owner) return 0;
  return deleteQueueKeys(runtime.clusterAdminNode(owner.address), queue, n, { inServer: true });
}

/** A migration a failed run may have left is cancelled, so the next run starts from a stable slot. */
async function settle(runtime: AtomicGrant, everyone: ShardNode[]): Promise<boolean> {
  let clean = true;
  for (const node of everyone) {
    const running = (await migrations(runtime, node.address)).some((job) => !FINISHED.has(job.state ?? ''));
    if (running) {
      clean = false;
      await runtime.clusterAdminNode(node.address).call('CLUSTER', 'CANCELSLOTMIGRATIONS');
    }
  }
  return clean;
}

export async function runAtomicReshard(
  runtime: AtomicGrant,
  input: { queue: string; size?: number },
): Promise<MigrationResult> {
  const { queue } = input;
  const jobCount = input.size ?? DEFAULT_MIGRATION_SIZE;
  const n = queueSlot(queue);
  return runtime.inTurn(async () => {
    await settle(runtime, await runtime.shards());
    const everyone = await runtime.shards();
    const owner = ownerOf(everyone, n);
    if (!owner) throw new Error(`no node of the Valkey 9 cluster serves slot ${n}`);
    const plan = planMove(queue, n, everyone, owner.id);
    const { source, target } = plan;
    const run: Runner = { runtime, slot: n, everyone };
    await cleanQueue(runtime, queue, n);
    // The probes send EVALSHA as they are, so both ends hold the scripts (a node restarted by its
    // supervisor comes back without them).
    for (const node of [source, target]) {
      for (const transition of ['enqueue', 'claim'] as const) {
        await runtime.clusterAdminNode(node.address).call('SCRIPT', 'LOAD', scriptFor(transition).source);
      }
    }
    // The queue's worker, on a client of its own (so its slot map is this run's alone).
    let worker: Worker | null = null;
    let cleaned = false;
    try {
      const jobs = (await fillQueue(runtime.clusterAdminNode(source.address), queue, jobCount)).slice(0, 3);
      const claim = callFor('claim', queue, { lease_ms: 30_000 });
      const read = ['HGETALL', jobKey(queue, jobs[0]!)];
      const list = [
        { label: 'a key of the queue (its oldest row)', command: read },
        { label: 'the scripted claim (declares the row base, never a key)', command: evalWords(claim) },
        {
          label: 'an enqueue (a new row, and the pending set)',
          command: evalWords(callFor('enqueue', queue, { id: mintJobId(), payload: '{"probe":true}' })),
        },
        {
          label: 'the module’s enqueue',
          command: nativeWords(callFor('enqueue', queue, { id: mintJobId(), payload: '{"probe":true}' })),
        },
      ];
      const phases: MigrationPhase[] = [];
      const keysNow = async () => ({
        source: await namedKeys(runtime, source.address, queue),
        target: await namedKeys(runtime, target.address, queue),
      });

      // Stable: the owner serves the read, the claim and the module's enqueue (the module is reached, and
      // refuses cluster mode). The scripted enqueue waits for the move, so its row is new then.
      const stableAt = stamp();
      const stableProbes: MigrationProbe[] = [];
      for (const { label, command } of list.slice(0, 2)) {
        stableProbes.push(await ask(runtime, source.address, label, command));
      }
      stableProbes.push(await ask(runtime, source.address, 'the module’s enqueue', list[3]!.command));
      const counted = () => keysByNode(everyone, (address) => runtime.clusterAdminNode(address), n);
      const stableCounts = await counted();
      phases.push({
        name: 'stable',
        summary: `slot ${n} is served by ${source.name} alone; the queue holds ${jobCount.toLocaleString('en')} jobs`,
        atMs: stableAt,
        owner: source.address,
        open: [],
        keys: await keysNow(),
        keysByNode: stableCounts,
        repliesByNode: repliesByNode(everyone, stableProbes),
        steps: [],
        probes: stableProbes,
      });
      const before = await countIn(runtime, source.address, n);

      worker = await settledWithin(
        5000,
        () => new Error('the run’s cluster client did not connect in 5 s'),
        startWorker(runtime.cluster, queue),
      );
      let moving: MigrationProbe[] = [];
      // Each node's count while the copy is under way: read once the probes have had their first answers.
      let midMove: Record<string, number> = stableCounts;
      const move = await migrateAtomically(run, source, target, async (state) => {
        const probing = probeWhileMoving(run, source, list, state);
        midMove = await counted();
        moving = await probing;
      });
      // The move is over: the worker claims on until the new owner serves it, then stops.
      const working = worker.stop({ untilServed: true });
      const leftOnSource = await drained(runtime, source.address, n);
      const after = await countIn(runtime, target.address, n);
      phases.push({
        name: 'moving',
        summary: `${source.name} copies slot ${n} to ${target.name} in the background and serves it meanwhile; each call was sent again and again until it was redirected`,
        atMs: move.startedAt,
        owner: source.address,
        open: [],
        // As the command went out: the copy arriving on the target is not a client's to see until the end.
        keys: phases[0]!.keys,
        keysByNode: midMove,
        repliesByNode: repliesByNode(everyone, moving),
        steps: [move.step],
        probes: moving,
      });
      const ownerKeys = await keysNow();
      const ownerCounts = await counted();
      const ownerProbes = [
        await ask(runtime, target.address, 'the scripted claim on the new owner', evalWords(claim)),
        await ask(runtime, source.address, 'the former owner redirects', evalWords(claim)),
        await ask(runtime, target.address, 'the module, reached on the new owner', list[3]!.command),
      ];
      phases.push({
        name: 'owner',
        summary: `every node names ${target.name} the owner of slot ${n}, ${move.ms} ms after MIGRATESLOTS`,
        atMs: move.endedAt,
        owner: target.address,
        open: [],
        keys: ownerKeys,
        keysByNode: ownerCounts,
        repliesByNode: repliesByNode(everyone, ownerProbes),
        steps: [],
        probes: ownerProbes,
      });

      const worked = await working;
      worker = null;
      const back = await migrateAtomically(run, target, source);
      phases.push({
        name: 'back',
        summary: `the slot moved back to ${source.name} the same way, in ${back.ms} ms`,
        atMs: back.endedAt,
        owner: source.address,
        open: [],
        keys: await keysNow(),
        keysByNode: await counted(),
        repliesByNode: repliesByNode(everyone, []),
        steps: [back.step],
        probes: [],
      });
      const owners = await Promise.all(
        everyone.map(
          async (node) => ownerOf(await readShards(runtime.clusterAdminNode(node.address)), n)?.id,
        ),
      );
      const clean = owners.every((id) => id === source.id) && (await settle(runtime, everyone));
      // The probes' only new key: the enqueue's row, written the first time it was served (later runs
      // were duplicates); the claims moved jobs between sets that existed already.
      const expected = before + (moving[2]!.served! > 0 ? 1 : 0);
      const leftBehind = await cleanQueue(runtime, queue, n);
      cleaned = true;
      return migrationAnswer(plan, {
        mode: 'atomic' as const,
        server: runtime.version,
        jobs,
        jobCount,
        moveMs: move.ms,
        ...sinceMoveStart(
          { phases, worker: workerTimeline(worked, move.startedAt, move.endedAt) },
          move.startedAt,
        ),
        client: clientOf(worked, claim),
        clean,
        leftBehind,
        atomic: {
          jobCount,
          states: move.states,
          moveMs: move.ms,
          keys: { before, after, expected, leftOnSource, together: leftOnSource === 0 && after === expected },
          backMs: back.ms,
        },
      });
    } finally {
      // A failed run cleans up after its last writer: the probes ended with the move (migrateAtomically
      // waits for them), the worker stops here; then the queue goes from every node that answers.
      await (worker as Worker | null)?.stop();
      if (!cleaned)
        for (const node of everyone)
          await deleteQueueKeysOn([runtime.clusterAdminNode(node.address)], queue, n).catch(() => {});
    }
  });
}
