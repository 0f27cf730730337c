// A migration as the page steps through it: a list of phases, each a step with its migration commands
// and its probes, walked in the order of the contract's table (contract/experiments/migration-phases.ts)
// by this one driver, the same for both modes. For each phase it runs the step's commands (recorded as
// the phase's `steps`: `record` goes to whatever sends them), stamps the phase, reads where the queue's
// keys are, asks the step's probes one after the other and counts, per node, the queue's keys (read from
// the node itself, CLUSTER COUNTKEYSINSLOT, never worked out from the plan) and the replies by kind, so
// the page draws a queue of thousands leaving one node and arriving on the other, and a call served
// again and again before one redirection as exactly that. The first command recorded is where the move
// begins (clock.ts).

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
import { asProbeReply, probe } from './probe.ts';
import { startWorker, workerTimeline, type Worker, type WorkerRun } from './worker.ts';
import { settledWithin } from '../../run-deadline.ts';

/** What a migration runs on, whichever cluster's slot it moves: the atomic mode's grant has this shape. */
export type MigrationCluster = Omit<AtomicGrant, 'inTurn'>;

/** What a move starts from: the nodes named as the node map names them, the owner, the node it moves to. */
export interface MovePlan {
  queue: string;
  slot: number;
  nodes: MigrationNode[];
  source: MigrationNode;
  target: MigrationNode;
}

/** One probe of a step: a command sent to one node (`host:port`), after ASKING when `asking`. */
export type ProbeAsk = Pick<MigrationProbe, 'node' | 'label' | 'command' | 'asking'>;

export const ask = (node: MigrationNode, label: string, command: string[], asking = false): ProbeAsk => ({
  node: node.address,
  label,
  command,
  asking,
});

/** What a step saw itself, where the driver's reading after its commands would come too late. */
export type PhaseSeen = Partial<Pick<MigrationPhase, 'atMs' | 'keys' | 'keysByNode' | 'probes'>>;

/** One phase of a migration: the commands that lead to it, then what it shows. */
export interface PhaseStep {
  /** One line saying what the phase is; a function when it names what the phase's commands measured. */
  summary: string | (() => string);
  /** The node that owns the slot in this phase. */
  owner: MigrationNode;
  /** The nodes with the slot open in this phase. */
  open?: MigrationPhase['open'];
  /** The phase's migration commands, and whatever must happen before them. */
  run?(): Promise<PhaseSeen | void>;
  /** The phase's probes, asked once the keys are read. */
  probes?(): ProbeAsk[];
  /** The probes asked before the keys are read, so what they wrote is counted with the queue. */
  probesFirst?: boolean;
}

/** A mode's steps, one per row of its table: walked in the table's order. */
export type PhaseSteps<M extends MigrationMode> = Record<MigrationPhaseName<M>, PhaseStep>;

/**
 * The plan for moving `queue`'s slot: its owner the source, the node after it the target; `shards` lists
 * the primaries by their first slot, so they are named as the node map names them (node 1, 2, …).
 */
export function planMove(queue: string, slot: number, shards: ShardNode[]): MovePlan {
  const nodes = shards.map(({ address, id }, i) => ({ name: `node ${i + 1}`, address, id }));
  const at = nodes.findIndex((node) => node.id === ownerOf(shards, slot)?.id);
  if (at < 0) throw new Error(`no node of the cluster serves slot ${slot}`);
  return { queue, slot, nodes, source: nodes[at]!, target: nodes[(at + 1) % nodes.length]! };
}

/**
 * The walk of one run's phases on `on` following `plan`; `listed` are the keys each phase lists where
 * they are (a queue's thousands of rows are counted, not listed).
 */
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

  // Each node's count of keys in the slot: a node counts the keys it holds whether or not it owns the
  // slot, so an importing target's arrivals count too; during a run the slot holds the queue's keys
  // alone (its turn on the slot, and the site's own keys refused there).
  const counts = async (): Promise<Record<string, number>> => {
    const read = nodes.map((node) =>
      on.clusterAdminNode(node.address).call('CLUSTER', 'COUNTKEYSINSLOT', slot),
    );
    const counted = await Promise.all(read);
    return Object.fromEntries(nodes.map(({ address }, i) => [address, Number(counted[i])]));
  };
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
    for (const { node, label, command, asking } of step.probes?.() ?? [])
      probes.push(await probe(on.clusterNode(node), node, label, command, asking));
    return probes;
  };

  return {
    phases,
    counts,
    async startWorker(): Promise<void> {
      const connecting = startWorker(on.cluster, plan.queue);
      claiming = await settledWithin(
        5000,
        () => new Error('the run’s cluster client did not connect in 5 s'),
        connecting,
      );
    },
    /** The move ended at `at` (every node names the new owner): the worker claims on until served. */
    moveOver(at: number): void {
      moveEnd = at;
      working = claiming!.stop({ untilServed: true });
    },
    /** The worker's claims once it stopped: before anything else moves the slot, so none meets that. */
    async workerStopped(): Promise<WorkerRun> {
      const worked = await working!;
      claiming = null;
      return worked;
    },
    /** Stops a worker still claiming: a failed run's clean-up comes after its last writer. */
    async stop(): Promise<void> {
      await claiming?.stop();
    },

    /** Keeps one migration command as the next phase's. */
    record({ node, command, reply, sentAt }: MigrationStep): void {
      origin ??= sentAt;
      commands.push({ node, command, reply: asProbeReply(reply), atMs: sentAt });
    },

    /** Walks `mode`'s steps in its table's order. */
    async through<M extends MigrationMode>(mode: M, steps: PhaseSteps<M>): Promise<void> {
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
        const { summary, owner, open = [] } = step;
        const keys = { source: onSource, target: onTarget };
        const repliesByNode = countReplies(nodes, probes);
        phases.push({
          name,
          summary: typeof summary === 'string' ? summary : summary(),
          atMs,
          owner: owner.address,
          open,
          keys,
          keysByNode,
          repliesByNode,
          steps: commands,
          probes,
        });
        commands = [];
      }
    },

    /**
     * The answer, its fields in the contract's order: what the run is (`head`), the move's length, every
     * stamp since the move began and the worker's claims, what else it saw (`tail`), then the plan as the
     * page reads it (its nodes by name, source and target by address).
     */
    async answer<Tail extends Partial<MigrationResult>>(
      head: Pick<MigrationResult, 'mode' | 'server' | 'jobs' | 'jobCount'>,
      tail: Tail,
    ) {
      const start = origin!;
      const worker = workerTimeline(await working!, start, moveEnd);
      const timed = sinceMoveStart({ moveMs: tenths(moveEnd - start), phases, worker }, start);
      const { queue } = plan;
      return {
        ...head,
        ...timed,
        ...tail,
        queue,
        slot,
        nodes,
        source: source.address,
        target: target.address,
      };
    },
  };
}

/**
 * The probes' replies by kind, per node (every node listed). A probe sent again and again (atomic mode,
 * `served` times alike, then the reply that ended it) counts each of its replies.
 */
function countReplies(
  nodes: MigrationNode[],
  probes: readonly MigrationProbe[],
): Record<string, ReplyCounts> {
  const none = () => Object.fromEntries(REPLY_KINDS.map((kind) => [kind, 0])) as ReplyCounts;
  const counts: Record<string, ReplyCounts> = Object.fromEntries(
    nodes.map(({ address }) => [address, none()]),
  );
  for (const probe of probes) {
    const node = (counts[probe.node] ??= none());
    if (probe.served === undefined) {
      node[replyKind(probe.reply)] += 1;
      continue;
    }
    // served alike `served` times (the first reply's kind), then the reply that ended it, if it redirected
    node[replyKind(probe.firstReply ?? probe.reply)] += probe.served;
    const last = replyKind(probe.reply);
    if (last === 'redirected' || last === 'retry') node[last] += 1;
  }
  return counts;
}
