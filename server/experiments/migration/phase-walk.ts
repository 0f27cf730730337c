// A migration as the page steps through it: one step per row of the contract's table of phases
// (contract/experiments/migration-phases.ts), walked by this driver for both modes. After each step's
// commands it stamps the phase, lists where the queue's keys are, asks the probes and counts per node
// the keys (read from the node, never worked out from the plan) and the replies by kind.

import { MIGRATION_PHASES, type MigrationPhaseName } from '../../contract/experiments/migration-phases.ts';
import {
  REPLY_KINDS,
  replyKind,
  type MigrationCommand,
  type MigrationMode,
  type MigrationNode,
  type MigrationPhase,
  type MigrationProbe,
  type MigrationResult,
  type ReplyCounts,
} from '../../contract/experiments/migration.ts';
import type { MigrationStep } from '../../explorer/slot-migration.ts';
import type { AtomicGrant } from '../../explorer/grants.ts';
import { ownerOf, type ShardNode } from '../../sandbox/cluster-topology.ts';
import { sinceMoveStart, stamp, tenths } from './clock.ts';
import { asProbeReply, probe, type ProbeAsk } from './probe.ts';
import { startWorker, workerTimeline, type Worker, type WorkerRun } from './worker.ts';
import { settledWithin } from '../../run-deadline.ts';

/** What a walk runs on, whichever cluster's slot it moves, named as the atomic mode's grant names it. */
type MigrationCluster = Pick<AtomicGrant, 'cluster' | 'clusterNode' | 'clusterAdminNode'>;

export type MovePlan = ReturnType<typeof planMove>;

export function ask(node: MigrationNode, label: string, command: string[], asking = false): ProbeAsk {
  return { node: node.address, label, command, asking };
}

/** One phase of a migration: the commands that lead to it, then what it shows. */
interface PhaseStep {
  /** One line saying what the phase is; a function when it names what the phase's commands measured. */
  summary: string | (() => string);
  /** The slot's owner in this phase, when not the source (which owns it until the target is named). */
  owner?: MigrationNode;
  open?: MigrationPhase['open'];
  /** The phase's commands; answers what it saw itself where a reading after them would come too late. */
  run?(): Promise<Partial<Pick<MigrationPhase, 'atMs' | 'keys' | 'keysByNode' | 'probes'>> | void>;
  /** The phase's probes, asked once the keys are read. */
  probes?(): ProbeAsk[];
  /** The probes asked before the keys are read, so what they wrote is counted with the queue. */
  probesFirst?: boolean;
}

/** What a move starts from: `queue`'s slot, its owner, the next node, named as the node map names them. */
export function planMove(queue: string, slot: number, shards: ShardNode[]) {
  const nodes = shards.map(({ address, id }, i) => ({ name: `node ${i + 1}`, address, id }));
  const at = nodes.findIndex((node) => node.id === ownerOf(shards, slot)?.id);
  if (at < 0) throw new Error(`no node of the cluster serves slot ${slot}`);
  return { queue, slot, nodes, source: nodes[at]!, target: nodes[(at + 1) % nodes.length]! };
}

/** One run's walk on `on`; `listed` are the keys each phase lists where they are (rows are counted). */
export function phaseWalk(on: MigrationCluster, plan: MovePlan, listed: string[]) {
  const { nodes, slot, source, target } = plan;
  const phases: MigrationPhase[] = [];
  // The move's first command, on the absolute clock: every stamp of the answer counts from it.
  let origin: number | null = null;
  let commands: MigrationCommand[] = [];
  // The queue's worker (worker.ts): claiming from before the move's first command until it is over.
  let claiming: Worker | null = null;
  let working: Promise<WorkerRun> | null = null;
  let moveEnd = 0;

  // A node counts the slot's keys it holds, owner or not, so an importing target's arrivals count too;
  // during a run the slot holds the queue's keys alone (its turn, and the site's own keys refused there).
  const countOn = async (node: MigrationNode) =>
    Number(await on.clusterAdminNode(node.address).call('CLUSTER', 'COUNTKEYSINSLOT', slot));
  const counts = async (): Promise<Record<string, number>> =>
    Object.fromEntries(await Promise.all(nodes.map(async (node) => [node.address, await countOn(node)])));
  // The listed keys a node has: EXISTS after ASKING, so an importing node answers for a slot it does
  // not own yet, and a node without them answers 0 or a redirection.
  const keysOn = async (node: MigrationNode) => {
    const batch = on.clusterAdminNode(node.address).pipeline();
    for (const key of listed) batch.call('ASKING').exists(key);
    const answers = (await batch.exec()) ?? [];
    return listed.filter((_, i) => answers[2 * i + 1]?.[1] === 1);
  };
  const asked = async (step: PhaseStep) => {
    const probes: MigrationProbe[] = [];
    for (const request of step.probes?.() ?? [])
      probes.push(await probe(on.clusterNode(request.node), request));
    return probes;
  };

  return {
    phases,
    counts,
    countOn,
    async startWorker(): Promise<void> {
      const late = () => new Error('the run’s cluster client did not connect in 5 s');
      claiming = await settledWithin(5000, late, startWorker(on.cluster, plan.queue));
    },
    /** The move ended at `at` (every node names the new owner): the worker claims on until served. */
    moveOver(at: number): void {
      moveEnd = at;
      working = claiming!.stop({ untilServed: true });
    },
    /** The worker's claims once it stopped: before anything else moves the slot, so none meets that. */
    workerStopped(): Promise<WorkerRun> {
      claiming = null;
      return working!;
    },
    /** Stops a worker still claiming: a failed run's clean-up comes after its last writer. */
    async stop(): Promise<void> {
      await claiming?.stop();
    },

    /** Keeps one migration command as the next phase's. */
    record(step: MigrationStep): void {
      origin ??= step.atMs;
      commands.push({ ...step, reply: asProbeReply(step.reply) });
    },

    /** Walks `mode`'s steps, one per row of its table, in the table's order. */
    async through<M extends MigrationMode>(mode: M, steps: Record<MigrationPhaseName<M>, PhaseStep>) {
      for (const { name } of MIGRATION_PHASES[mode]) {
        const step: PhaseStep = steps[name as MigrationPhaseName<M>];
        const seen = (await step.run?.()) ?? {};
        const atMs = seen.atMs ?? stamp();
        const first = step.probesFirst ? await asked(step) : null;
        const [onSource, onTarget, keysByNode] = await Promise.all([
          seen.keys?.source ?? keysOn(source),
          seen.keys?.target ?? keysOn(target),
          seen.keysByNode ?? counts(),
        ]);
        const probes = seen.probes ?? first ?? (await asked(step));
        phases.push({
          name,
          summary: typeof step.summary === 'string' ? step.summary : step.summary(),
          atMs,
          owner: (step.owner ?? source).address,
          open: step.open ?? [],
          keys: { source: onSource, target: onTarget },
          keysByNode,
          repliesByNode: countReplies(nodes, probes),
          steps: commands,
          probes,
        });
        commands = [];
      }
    },

    /** The answer, its fields in the contract's order (the plan last); stamps made relative to the move. */
    async answer<Tail extends Partial<MigrationResult>>(
      head: Pick<MigrationResult, 'mode' | 'server' | 'jobs' | 'jobCount'>,
      tail: Tail,
    ) {
      const start = origin!;
      const worker = workerTimeline(await working!, start, moveEnd);
      const timed = sinceMoveStart({ moveMs: tenths(moveEnd - start), phases, worker }, start);
      const moved = { queue: plan.queue, slot, nodes, source: source.address, target: target.address };
      return { ...head, ...timed, ...tail, ...moved };
    },
  };
}

/** The probes' replies by kind, per node (every node listed, 0 where none). */
function countReplies(nodes: MigrationNode[], probes: MigrationProbe[]): Record<string, ReplyCounts> {
  const none = () => Object.fromEntries(REPLY_KINDS.map((kind) => [kind, 0])) as ReplyCounts;
  const counts: Record<string, ReplyCounts> = {};
  for (const { address } of nodes) counts[address] = none();
  for (const probe of probes) {
    const node = (counts[probe.node] ??= none());
    const last = replyKind(probe.reply);
    // Sent again and again: `served` replies of the first one's kind, then the last if it redirected.
    if (probe.served !== undefined) node[replyKind(probe.firstReply ?? probe.reply)] += probe.served;
    if (probe.served === undefined || last === 'redirected' || last === 'retry') node[last] += 1;
  }
  return counts;
}
