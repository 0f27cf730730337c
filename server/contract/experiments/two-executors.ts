// two-executors: one sequence of steps through the scripted executor and the native module side by side,
// with both replies, both keyspaces and what each step changed. The steps are the conformance suite's.

import type { KeyChange, KeyspaceDump } from '../dump.ts';
import { CORE_TRANSITIONS, type CoreTransition, type Reply, type TransitionName } from '../transitions.ts';
import type { WireCommand, WireProof } from '../wire/types.ts';

/** The steps a sequence is made of: the seven transitions, plus a duplicate enqueue and a stale token. */
// The type is spelled out rather than read from the array, so the OpenAPI generator (scripts/openapi.ts),
// which cannot evaluate a spread, reads it as the type checker does.
export type Step = CoreTransition | 'duplicate' | 'stale';
export const STEPS: readonly Step[] = [...CORE_TRANSITIONS, 'duplicate', 'stale'];

/** The sequence a run takes when the reader names none. */
export const DEFAULT_STEPS: Step[] = [
  'enqueue',
  'enqueue',
  'duplicate',
  'claim',
  'stale',
  'complete',
  'claim',
  'retry',
  'schedule',
  'promote',
  'reap',
];

/** What a reader sends: up to LIMITS.steps steps (DEFAULT_STEPS if left out), and a queue (`orders`). */
export interface TwoExecutorsBody {
  steps?: Step[];
  queue?: string;
}

export type ReplyOrError = Reply | { error: string };

/** One executor's side of a step: its reply, its keyspace after, what changed, and its wire. */
export interface ExecutorSide {
  reply: ReplyOrError;
  keyspace: KeyspaceDump;
  changes: KeyChange[];
  wire: WireCommand[];
  proof: WireProof;
}

export interface ExecutorStep {
  step: Step;
  transition: TransitionName;
  keys: string[];
  args: string[];
  scripted: ExecutorSide;
  native: ExecutorSide;
  windowMs: number;
  same: boolean;
  differences: string[];
}

export type TwoExecutorsResult =
  | { available: false; message: string }
  | { available: true; queue: string; steps: ExecutorStep[]; same: boolean };
