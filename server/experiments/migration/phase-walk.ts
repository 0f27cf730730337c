// A migration as the page steps through it: a list of phases, each a step with its migration commands
// and its probes, walked in the order of the contract's table (contract/experiments/migration-phases.ts)
// by this one driver, the same for both modes. For each phase it runs the step's commands (recorded as
// the phase's `steps`: `record` goes to whatever sends them), stamps the phase, reads where the queue's
// keys are and how many each node holds (phase-counts.ts), asks the step's probes one after the other
// and counts their replies. The first command recorded is where the move begins (clock.ts).

import { MIGRATION_PHASES, type MigrationPhaseName } from '../../contract/experiments/migration-phases.ts';
import type {
  MigrationCommand,
  MigrationMode,
  MigrationNode,
  MigrationPhase,
  MigrationProbe,
  MigrationResult,
} from '../../contract/experiments/migration.ts';
import type { MigrationStep } from '../../explorer/slot-migration.ts';
import type { MigrationCluster } from './on-cluster.ts';
import type { MovePlan } from './plan.ts';
import { sinceMoveStart, stamp, tenths } from './clock.ts';
import { keysByNode, repliesByNode } from './phase-counts.ts';
import { asProbeReply, probe } from './probe.ts';
import { workerTimeline, type WorkerRun } from './worker.ts';

/** One probe of a step: a command sent to one node (`host:port`), after ASKING when `asking`. */
export interface ProbeAsk {
  node: string;
  label: string;
  command: string[];
  asking?: boolean;
}

/** What a step saw itself, where the driver's reading after its commands would come too late. */
export type PhaseSeen = Partial<Pick<MigrationPhase, 'atMs' | 'keys' | 'keysByNode' | 'probes'>>;

/** One phase of a migration: the commands that lead to it, then what it shows. */
export interface PhaseStep {
  /** One line saying what the phase is, said once its commands ran (it may name what they measured). */
  summary(): string;
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

export class PhaseWalk {
  readonly phases: MigrationPhase[] = [];
  /** The move's first command, on the absolute clock: every stamp of the answer counts from it. */
  private origin: number | null = null;
  private steps: MigrationCommand[] = [];
  private readonly on!: MigrationCluster;
  private readonly plan!: MovePlan;
  private readonly listed!: string[];

  /** `listed`: the keys each phase lists where they are (a queue's thousands of rows are counted). */
  constructor(on: MigrationCluster, plan: MovePlan, listed: string[]) {
    Object.assign(this, { on, plan, listed });
  }

  /** Keeps one migration command as the next phase's. */
  readonly record = ({ node, command, reply, sentAt }: MigrationStep): void => {
    this.origin ??= sentAt;
    this.steps.push({ node, command, reply: asProbeReply(reply), atMs: sentAt });
  };

  /** Each node's count of the queue's keys, now. */
  counts(): Promise<Record<string, number>> {
    return keysByNode(this.plan.nodes, this.on.admin, this.plan.slot);
  }

  /** Walks `mode`'s steps in its table's order; answers the phases. */
  async through<M extends MigrationMode>(mode: M, steps: PhaseSteps<M>): Promise<MigrationPhase[]> {
    for (const { name } of MIGRATION_PHASES[mode]) {
      const step: PhaseStep = steps[name as MigrationPhaseName<M>];
      const seen = (await step.run?.()) ?? {};
      const atMs = seen.atMs ?? stamp();
      const first = step.probesFirst ? await this.ask(step) : null;
      const [keys, counted] = await Promise.all([seen.keys ?? this.keys(), seen.keysByNode ?? this.counts()]);
      const probes = seen.probes ?? first ?? (await this.ask(step));
      this.phases.push({
        name,
        summary: step.summary(),
        atMs,
        owner: step.owner.address,
        open: step.open ?? [],
        keys,
        keysByNode: counted,
        repliesByNode: repliesByNode(this.plan.nodes, probes),
        steps: this.steps,
        probes,
      });
      this.steps = [];
    }
    return this.phases;
  }

  /** The answer's times: the move's length, every stamp since it began, the worker's claims over it. */
  timed(worked: WorkerRun, moveEnd: number): Pick<MigrationResult, 'moveMs' | 'phases' | 'worker'> {
    const origin = this.origin!;
    const worker = workerTimeline(worked, origin, moveEnd);
    return { moveMs: tenths(moveEnd - origin), ...sinceMoveStart({ phases: this.phases, worker }, origin) };
  }

  private async keys(): Promise<MigrationPhase['keys']> {
    const [source, target] = await Promise.all([
      this.keysOn(this.plan.source),
      this.keysOn(this.plan.target),
    ]);
    return { source, target };
  }

  /**
   * The listed keys `node` has: EXISTS after ASKING, so an importing node answers for a slot it does
   * not own yet, and a node without them answers 0 or a redirection.
   */
  private async keysOn(node: MigrationNode): Promise<string[]> {
    const batch = this.on.admin(node.address).pipeline();
    for (const key of this.listed) batch.call('ASKING').exists(key);
    const answers = (await batch.exec()) ?? [];
    return this.listed.filter((_, i) => answers[2 * i + 1]?.[1] === 1);
  }

  private async ask(step: PhaseStep): Promise<MigrationProbe[]> {
    const probes: MigrationProbe[] = [];
    for (const { node, label, command, asking } of step.probes?.() ?? [])
      probes.push(await probe(this.on.reader(node), node, label, command, asking));
    return probes;
  }
}
