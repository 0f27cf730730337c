// The seeded sequences both conformance suites run (the native module against the scripted executor on
// a standalone node, and the scripted executor on a standalone node against the same on the three-node
// cluster): a seed gives its queue name and 15–40 steps, and `outcome` names the branch a step reached.

import { STEPS, type Step, type StepResult } from '../../server/conformance/conformance.ts';
import { seededRandom } from '../../server/seeded-random.ts';

export const BASE_SEED = 7_000;
export const SEQUENCES = 200;
export const QUEUES = ['orders', 'ça-va', 'emq', 'a b', '🙂'];

/** Steps weighted so a sequence has work to claim, complete and retry; every step can appear. */
const WEIGHTS: Record<Step, number> = {
  enqueue: 4,
  schedule: 2,
  claim: 4,
  complete: 2,
  retry: 2,
  promote: 1,
  reap: 1,
  duplicate: 1,
  stale: 1,
};

/** The sequence of a seed: its queue name and 15–40 steps, from the seed alone. */
export function sequenceFor(seed: number): { queue: string; steps: Step[] } {
  const random = seededRandom(seed);
  const bag = STEPS.flatMap((step) => Array<Step>(WEIGHTS[step]).fill(step));
  const length = 15 + Math.floor(random() * 26);
  const steps = Array.from({ length }, () => bag[Math.floor(random() * bag.length)]!);
  return { queue: QUEUES[Math.floor(random() * QUEUES.length)]!, steps };
}

/** What a step's reply covered, so a suite can show it reached every branch of every transition. */
export function outcome(result: StepResult): string {
  const reply = result.replies[0];
  const t = result.call.transition;
  if (reply !== null && typeof reply === 'object' && 'error' in reply)
    return `${t}:${reply.error.split(' ')[0]}`;
  if (Array.isArray(reply)) return `${t}:claimed`;
  if (reply === null) return `${t}:nil`;
  if (typeof reply === 'number' && t !== 'promote' && t !== 'reap') return `${t}:${reply}`;
  if (typeof reply === 'number') return `${t}:${reply > 0 ? 'moved' : 'none'}`;
  return `${t}:${reply}`;
}

/** Every branch the 200 sequences reach. */
export const BRANCHES = [
  'enqueue:1',
  'enqueue:0',
  'schedule:1',
  'claim:claimed',
  'claim:nil',
  'complete:1',
  'complete:0',
  'complete:EMQSTALE',
  'retry:scheduled',
  'retry:dead',
  'retry:0',
  'promote:moved',
  'promote:none',
  'reap:moved',
  'reap:none',
];
