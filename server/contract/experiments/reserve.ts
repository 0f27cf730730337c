// reserve: the steps on two fresh keyspaces by which {emq}:version comes to hold a wire identity, and the
// refusals that keep speakers who disagree out of one keyspace.

import type { WireCommand, WireProof } from '../wire/types.ts';
import type { ReservePlanStep } from './reserve-plan.ts';

/** It takes nothing: `{}`. */
export type ReserveBody = Record<string, never>;

export interface ReserveStep extends ReservePlanStep {
  commands: Array<{ command: string; reply: string | null }>;
  outcome: 'ok' | 'refused';
  message: string;
  /** What {emq}:version holds after the step. */
  identity: string | null;
  /** Every command the step's connection sent, as the server received it. */
  wire: WireCommand[];
  /** The server's own counts of them. */
  proof: WireProof;
}

export interface ReserveResult {
  native: boolean;
  steps: ReserveStep[];
}
