// reshard, atomic mode: the slot moved by one CLUSTER MIGRATESLOTS (Valkey 9), which copies it to the
// target, streams the writes that follow and hands it over, while the keys mode's probes are sent to the
// source again and again (served, then MOVED; never ASK or TRYAGAIN) and the states GETSLOTMIGRATIONS
// reports are kept; then back the same way. One step per row of the contract's table (phase-walk.ts).

import { callFor } from '../../contract/calls.ts';
import { loadScripts } from '../../executors/scripted.ts';
import type { Call } from '../../contract/transitions.ts';
import { jobKey, mintJobId, queueKeys, queueSlot } from '../../contract/keyspace/index.ts';
import { ownerOf } from '../../sandbox/cluster-topology.ts';
import { checkCluster } from '../../sandbox/cluster-check.ts';
import { waitAgreement } from '../../sandbox/slot-settle.ts';
import type { AtomicGrant } from '../../explorer/grants.ts';
import { deleteQueueKeys, deleteQueueKeysOn } from '../../cluster/queue-keys.ts';
import { cancelMigrations, FINISHED, slotMigrations } from '../../cluster/slot-migrations.ts';
import type { MigrationStep } from '../../explorer/slot-migration.ts';
import {
  DEFAULT_MIGRATION_SIZE,
  isErrorReply,
  replyKind,
  type ClientRetries,
  type MigrationNode,
  type MigrationProbe,
  type MigrationResult,
  type ProbeReply,
  type SlotMigrationState,
} from '../../contract/experiments/migration.ts';
import { evalWords, nativeWords, probe, type ProbeAsk } from './probe.ts';
import { pause, stamp, tenths } from './clock.ts';
import { fillQueue } from './fill.ts';
import { clientRetries, WORKER_PAUSE_MS, type WorkerRun } from './worker.ts';
import { ATOMIC_MOVE_DEADLINE_MS } from '../../settings/bounds.ts';
import { ask, phaseWalk, planMove, type MovePlan } from './phase-walk.ts';

const errorText = (reply: ProbeReply): string => (isErrorReply(reply) ? reply.error : '');
const redirected = (reply: ProbeReply) => ['redirected', 'retry'].includes(replyKind(reply));

/** What an atomic move measured: each migration state when first seen, when it began and ended. */
type Moved = Awaited<ReturnType<typeof migrateAtomically>>;

/**
 * MIGRATESLOTS, then both ends' migration states kept until the export ends, while `during` runs (told
 * once the move has failed); resolves once every node names the target.
 */
async function migrateAtomically(
  on: AtomicGrant,
  plan: MovePlan,
  record: (step: MigrationStep) => void,
  during?: (failed: () => boolean) => Promise<void>,
) {
  const { slot: n, source, target } = plan;
  const admin = (node: MigrationNode) => on.clusterAdminNode(node.address);
  // The source's jobs from before: the move's own job is the one that is new there.
  const known = new Set((await slotMigrations(admin(source))).map((job) => job.name));
  const command = ['CLUSTER', 'MIGRATESLOTS', 'SLOTSRANGE', String(n), String(n), 'NODE', target.id];
  const late = `the atomic move of slot ${n} did not finish within ${ATOMIC_MOVE_DEADLINE_MS / 1000} s`;
  const startedAt = stamp();
  const reply = await admin(source).call(command[0]!, ...command.slice(1));
  record({ node: source.address, command, reply, atMs: startedAt });
  const states: SlotMigrationState[] = [];
  const seen = new Set<string>();
  let exportState = '';
  let job = '';
  let over = false;
  const watching = (async () => {
    while (!FINISHED.has(exportState)) {
      if (stamp() - startedAt > ATOMIC_MOVE_DEADLINE_MS) {
        await cancelMigrations([source.address], on.clusterAdminNode).catch(() => {});
        throw new Error(late);
      }
      for (const node of [source, target]) {
        for (const { name = '', operation = '', state = '' } of await slotMigrations(admin(node))) {
          if (node === source && !job && !known.has(name)) job = name;
          if (!job || name !== job) continue;
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
  })().finally(() => (over = true));
  // Both end before this does, failed or not: nothing of the move's probes writes after it returns.
  const outcomes = await Promise.allSettled([watching, during?.(() => over && exportState !== 'success')]);
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
  // Over once every node names the target (one read where all agree, as the move's time ends there).
  const everyone = plan.nodes.map((node) => node.address);
  await waitAgreement(on.clusterAdminNode, everyone, [n], () => target.id, Date.now() + 5000, {
    stableReads: 1,
  });
  const endedAt = stamp();
  return { states, ms: tenths(endedAt - startedAt), startedAt, endedAt };
}

/** Each probe sent to its node over and over while the slot moves, until it answers a redirection. */
async function probeWhileMoving(on: AtomicGrant, list: ProbeAsk[], failed: () => boolean) {
  const results = list.map(({ node, label, command }): MigrationProbe => ({
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
      const { reply, atMs } = await probe(on.clusterNode(asked.node), asked);
      if (!redirected(reply)) asked.served! += 1;
      // On the time axis where it was first sent: the round-robin keeps the list's order.
      if (asked.firstReply === undefined) Object.assign(asked, { firstReply: reply, atMs });
      asked.reply = reply;
    }
    // As the worker pauses between claims: a redirection is seen within ms, without back-to-back trips.
    await pause(WORKER_PAUSE_MS);
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
  const wire = run.calls.filter((call, i) => i === 0 || call === moved).flatMap((call) => call.wire);
  return clientRetries(claim, wire, (moved ?? run.calls.at(-1))?.reply ?? null);
}

/** A migration a failed run may have left is cancelled, so the next run starts from a stable slot. */
async function settle(on: AtomicGrant): Promise<boolean> {
  const addresses = (await on.shards()).map(({ address }) => address);
  return (await cancelMigrations(addresses, on.clusterAdminNode)).length === 0;
}

export async function runAtomicReshard(
  on: AtomicGrant,
  { queue, size: jobCount = DEFAULT_MIGRATION_SIZE }: { queue: string; size?: number },
): Promise<MigrationResult> {
  const n = queueSlot(queue);
  return on.inTurn(async () => {
    await settle(on);
    const plan = planMove(queue, n, await on.shards());
    const { source, target } = plan;
    // Every key of the queue deleted from the slot's owner; answers how many outlived it.
    const cleanQueue = async () => {
      const owner = ownerOf(await on.shards(), n);
      return owner ? deleteQueueKeys(on.clusterAdminNode(owner.address), queue, n, { inServer: true }) : 0;
    };
    await cleanQueue();
    // The probes send EVALSHA as is: both ends must hold the scripts (a restarted node comes back without).
    for (const node of [source, target]) await loadScripts(on.clusterAdminNode(node.address));
    // The queue's own keys are listed where they are; its rows are counted.
    const listed = queueKeys(queue).map(({ key }) => key);
    const walk = phaseWalk(on, plan, listed);
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
      // The slot's keys: on the source before, on the target after (plus the probes' one new row).
      const keys = { before: 0, after: 0, expected: 0, leftOnSource: 0, together: false };
      let moving: MigrationProbe[] = [];
      let worked: WorkerRun;
      let there: Moved;
      let back: Moved;
      await walk.through('atomic', {
        // The owner serves the read, the claim and the module's enqueue (the module is reached, and
        // refuses cluster mode). The scripted enqueue waits for the move, so its row is new then.
        stable: {
          summary: `slot ${n} is served by ${source.name} alone; the queue holds ${jobCount.toLocaleString('en')} jobs`,
          probesFirst: true,
          probes: () => [read, claimed, module],
        },
        moving: {
          summary: `${source.name} copies slot ${n} to ${target.name} in the background and serves it meanwhile; each call was sent again and again until it was redirected`,
          async run() {
            keys.before = await walk.countOn(source);
            await walk.startWorker();
            // Each node's count while the copy is under way: read once the probes have had their first answers.
            let midMove = walk.phases[0]!.keysByNode;
            there = await migrateAtomically(on, plan, walk.record, async (failed) => {
              const probing = probeWhileMoving(on, [read, claimed, enqueued, module], failed);
              midMove = await walk.counts();
              moving = await probing;
            });
            walk.moveOver(there.endedAt);
            // The source deletes a slot it gave away in the background: its count once that is done (or 2 s).
            const deadline = Date.now() + 2000;
            while ((keys.leftOnSource = await walk.countOn(source)) > 0 && Date.now() < deadline)
              await pause(5);
            keys.after = await walk.countOn(target);
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
          async run() {
            worked = await walk.workerStopped();
            back = await migrateAtomically(on, { ...plan, source: target, target: source }, walk.record);
            return { atMs: back.endedAt };
          },
        },
      });
      const everyone = plan.nodes.map((node) => node.address);
      const clean =
        (await checkCluster(on.clusterAdminNode, everyone)).problems.length === 0 && (await settle(on));
      // The probes' only new key: the enqueue's row, written the first time it was served (later runs
      // were duplicates); the claims moved jobs between sets that existed already.
      keys.expected = keys.before + (moving[2]!.served! > 0 ? 1 : 0);
      keys.together = keys.leftOnSource === 0 && keys.after === keys.expected;
      const leftBehind = await cleanQueue();
      const atomic = { jobCount, states: there!.states, moveMs: there!.ms, keys, backMs: back!.ms };
      const head = { mode: 'atomic' as const, server: on.version, jobs, jobCount };
      return walk.answer(head, { client: clientOf(worked!, claim), clean, leftBehind, atomic });
    } finally {
      // The clean-up comes after the run's last writer: the probes ended with the move (migrateAtomically
      // waits for them), the worker stops here; then the queue goes from every node that answers.
      await walk.stop();
      for (const node of plan.nodes)
        await deleteQueueKeysOn([on.clusterAdminNode(node.address)], queue, n).catch(() => {});
    }
  });
}
