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
import { ownerOf, readShards } from '../../sandbox/cluster-topology.ts';
import type { AtomicGrant } from '../../explorer/grants.ts';
import { deleteQueueKeys, deleteQueueKeysOn } from '../../cluster/queue-keys.ts';
import { FINISHED, slotMigrations, unfinishedMigrations } from '../../cluster/slot-migrations.ts';
import type { MigrationStep } from '../../explorer/slot-migration.ts';
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
import { probe } from './probe.ts';
import { stamp, tenths } from './clock.ts';
import { fillQueue } from './fill.ts';
import { WORKER_PAUSE_MS, type WorkerRun } from './worker.ts';
import { ATOMIC_MOVE_DEADLINE_MS } from '../../settings/bounds.ts';
import { ask, phaseWalk, planMove, type MigrationCluster, type ProbeAsk } from './phase-walk.ts';

/**
 * Between two rounds of the probes sent while the slot moves, as the worker pauses between claims: a
 * redirection is seen within a few ms, without a round trip after round trip for the whole move.
 */
const PROBE_PAUSE_MS = WORKER_PAUSE_MS;
const REDIRECTED = /^(MOVED|ASK|TRYAGAIN)\b/;

const errorText = (reply: ProbeReply): string => (isErrorReply(reply) ? reply.error : '');
const redirected = (reply: ProbeReply) => REDIRECTED.test(errorText(reply));
const keyOf = ({ key }: { key: string }) => key;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One atomic move of a slot: where it goes, on which cluster, its command recorded by `record`. */
interface Move {
  on: MigrationCluster;
  slot: number;
  source: MigrationNode;
  target: MigrationNode;
  record(step: MigrationStep): void;
}

/** What an atomic move measured: each migration state when first seen, when it began and ended. */
interface Moved {
  states: SlotMigrationState[];
  ms: number;
  startedAt: number;
  endedAt: number;
}

/** Whether every node names `owner` the owner of `slot`. */
async function everyNodeNames(on: MigrationCluster, slot: number, owner: MigrationNode): Promise<boolean> {
  const nodes = await on.shards();
  const views = await Promise.all(nodes.map((node) => readShards(on.clusterAdminNode(node.address))));
  return views.every((shards) => ownerOf(shards, slot)?.id === owner.id);
}

/**
 * Sends MIGRATESLOTS for the slot, reads both nodes' migration jobs until the export ends (keeping each
 * new state), and meanwhile runs `during` against the source, told when the move has failed. Resolves
 * once every node names the target.
 */
async function migrateAtomically(
  { on, slot: n, source, target, record }: Move,
  during?: (failed: () => boolean) => Promise<void>,
): Promise<Moved> {
  const known = new Set((await slotMigrations(on.clusterAdminNode(source.address))).map((job) => job.name));
  const command = ['CLUSTER', 'MIGRATESLOTS', 'SLOTSRANGE', String(n), String(n), 'NODE', target.id];
  const startedAt = stamp();
  record({
    node: source.address,
    command,
    reply: await on.clusterAdminNode(source.address).call(command[0]!, ...command.slice(1)),
    sentAt: startedAt,
  });
  const states: SlotMigrationState[] = [];
  const seen = new Set<string>();
  let exportState = '';
  let job = '';
  let over = false;
  const watching = (async () => {
    while (!FINISHED.has(exportState)) {
      if (stamp() - startedAt > ATOMIC_MOVE_DEADLINE_MS) {
        await on
          .clusterAdminNode(source.address)
          .call('CLUSTER', 'CANCELSLOTMIGRATIONS')
          .catch(() => {});
        throw new Error(
          `the atomic move of slot ${n} did not finish within ${ATOMIC_MOVE_DEADLINE_MS / 1000} s`,
        );
      }
      for (const node of [source, target]) {
        for (const entry of await slotMigrations(on.clusterAdminNode(node.address))) {
          if (node === source && known.has(entry.name ?? '')) continue;
          if (node === source) job ||= entry.name ?? '';
          if (!job || entry.name !== job) continue;
          const { operation = '', state = '' } = entry;
          if (!seen.has(`${node.address} ${operation} ${state}`)) {
            seen.add(`${node.address} ${operation} ${state}`);
            states.push({ atMs: tenths(stamp() - startedAt), node: node.address, operation, state });
          }
          if (node === source) exportState = state;
        }
      }
      await pause(5);
    }
    if (exportState !== 'success') throw new Error(`the atomic move of slot ${n} ended ${exportState}`);
  })().finally(() => {
    over = true;
  });
  // Both end before this does, failed or not: nothing of the move's probes writes after it returns.
  const outcomes = await Promise.allSettled([watching, during?.(() => over && exportState !== 'success')]);
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  for (const deadline = Date.now() + 5000; !(await everyNodeNames(on, n, target)); await pause(5))
    if (Date.now() > deadline)
      throw new Error(`the nodes never agreed that ${target.address} owns slot ${n}`);
  const endedAt = stamp();
  return { states, ms: tenths(endedAt - startedAt), startedAt, endedAt };
}

/** Each probe sent to its node over and over while the slot moves, until it answers a redirection. */
async function probeWhileMoving(on: MigrationCluster, list: ProbeAsk[], failed: () => boolean) {
  const results: MigrationProbe[] = list.map(({ node, label, command }) => ({
    label,
    command,
    node,
    reply: null,
    served: 0,
    atMs: 0,
  }));
  const deadline = Date.now() + ATOMIC_MOVE_DEADLINE_MS + 2000;
  // A move that failed never redirects them: stop with it.
  while (Date.now() < deadline && !failed() && results.some((asked) => !redirected(asked.reply))) {
    for (const asked of results.filter((asked) => !redirected(asked.reply))) {
      const { reply, atMs } = await probe(on.clusterNode(asked.node), asked.node, asked.label, asked.command);
      if (!redirected(reply)) asked.served! += 1;
      // On the time axis where it was first sent: the round-robin keeps the list's order.
      if (asked.firstReply === undefined) Object.assign(asked, { firstReply: reply, atMs });
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
    call.wire.map(({ node, line, reply }) => ({ node: node ?? '', line, reply: reply as ProbeReply })),
  );
  return { command: evalWords(claim), wire, reply: (moved ?? run.calls.at(-1))?.reply ?? null };
}

/** A migration a failed run may have left is cancelled, so the next run starts from a stable slot. */
async function settle(on: MigrationCluster): Promise<boolean> {
  let clean = true;
  for (const { address } of await on.shards()) {
    const node = on.clusterAdminNode(address);
    if ((await unfinishedMigrations(node)).length === 0) continue;
    clean = false;
    await node.call('CLUSTER', 'CANCELSLOTMIGRATIONS');
  }
  return clean;
}

export async function runAtomicReshard(
  on: AtomicGrant,
  input: { queue: string; size?: number },
): Promise<MigrationResult> {
  const { queue } = input;
  const jobCount = input.size ?? DEFAULT_MIGRATION_SIZE;
  const n = queueSlot(queue);
  return on.inTurn(async () => {
    await settle(on);
    const everyone = await on.shards();
    const plan = planMove(queue, n, everyone);
    const { source, target } = plan;
    const count = async (node: MigrationNode) =>
      Number(await on.clusterAdminNode(node.address).call('CLUSTER', 'COUNTKEYSINSLOT', n));
    // Every key of the queue deleted from the slot's owner; answers how many outlived it.
    const cleanQueue = async () => {
      const owner = ownerOf(await on.shards(), n);
      return owner ? deleteQueueKeys(on.clusterAdminNode(owner.address), queue, n, { inServer: true }) : 0;
    };
    await cleanQueue();
    // The probes send EVALSHA as they are, so both ends hold the scripts (a node restarted by its
    // supervisor comes back without them).
    for (const node of [source, target])
      for (const transition of ['enqueue', 'claim'] as const)
        await on.clusterAdminNode(node.address).call('SCRIPT', 'LOAD', scriptFor(transition).source);
    // The queue's own keys are listed where they are; its rows are counted.
    const walk = phaseWalk(on, plan, queueKeys(queue).map(keyOf));
    let cleaned = false;
    try {
      const jobs = (await fillQueue(on.clusterAdminNode(source.address), queue, jobCount)).slice(0, 3);
      const claim = callFor('claim', queue, { lease_ms: 30_000 });
      const enqueue = () => callFor('enqueue', queue, { id: mintJobId(), payload: '{"probe":true}' });
      const [read, claimed, enqueued, module] = [
        ask(source, 'a key of the queue (its oldest row)', ['HGETALL', jobKey(queue, jobs[0]!)]),
        ask(source, 'the scripted claim (declares the row base, never a key)', evalWords(claim)),
        ask(source, 'an enqueue (a new row, and the pending set)', evalWords(enqueue())),
        ask(source, 'the module’s enqueue', nativeWords(enqueue())),
      ];
      const move = { on, slot: n, source, target, record: walk.record };
      let before = 0;
      let after = 0;
      let leftOnSource = 0;
      let moving: MigrationProbe[] = [];
      let worked: WorkerRun;
      let there: Moved;
      let back: Moved;
      await walk.through('atomic', {
        // The owner serves the read, the claim and the module's enqueue (the module is reached, and
        // refuses cluster mode). The scripted enqueue waits for the move, so its row is new then.
        stable: {
          summary: `slot ${n} is served by ${source.name} alone; the queue holds ${jobCount.toLocaleString('en')} jobs`,
          owner: source,
          probesFirst: true,
          probes: () => [read, claimed, module],
        },
        moving: {
          summary: `${source.name} copies slot ${n} to ${target.name} in the background and serves it meanwhile; each call was sent again and again until it was redirected`,
          owner: source,
          async run() {
            before = await count(source);
            await walk.startWorker();
            // Each node's count while the copy is under way: read once the probes have had their first answers.
            let midMove = walk.phases[0]!.keysByNode;
            there = await migrateAtomically(move, async (failed) => {
              const probing = probeWhileMoving(on, [read, claimed, enqueued, module], failed);
              midMove = await walk.counts();
              moving = await probing;
            });
            walk.moveOver(there.endedAt);
            // The source deletes a slot it gave away in the background: its count once that is done (or 2 s).
            const deadline = Date.now() + 2000;
            while ((leftOnSource = await count(source)) > 0 && Date.now() < deadline) await pause(5);
            after = await count(target);
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
            worked = await walk.workerStopped();
            back = await migrateAtomically({ ...move, source: target, target: source });
            return { atMs: back.endedAt };
          },
        },
      });
      const clean = (await everyNodeNames(on, n, source)) && (await settle(on));
      // The probes' only new key: the enqueue's row, written the first time it was served (later runs
      // were duplicates); the claims moved jobs between sets that existed already.
      const expected = before + (moving[2]!.served! > 0 ? 1 : 0);
      const leftBehind = await cleanQueue();
      cleaned = true;
      const keys = {
        before,
        after,
        expected,
        leftOnSource,
        together: leftOnSource === 0 && after === expected,
      };
      const atomic = { jobCount, states: there!.states, moveMs: there!.ms, keys, backMs: back!.ms };
      const client = clientOf(worked!, claim);
      const head = { mode: 'atomic' as const, server: on.version, jobs, jobCount };
      return walk.answer(head, { client, clean, leftBehind, atomic });
    } finally {
      // A failed run cleans up after its last writer: the probes ended with the move (migrateAtomically
      // waits for them), the worker stops here; then the queue goes from every node that answers.
      await walk.stop();
      if (!cleaned)
        for (const node of everyone)
          await deleteQueueKeysOn([on.clusterAdminNode(node.address)], queue, n).catch(() => {});
    }
  });
}
