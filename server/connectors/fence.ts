// The fence a connector runs on its connection before any transition: it keeps speakers that disagree
// about the wire out of one keyspace. Every step is recorded, so the course can show it as it happened.

import type { Valkey } from 'iovalkey';
import { versionKey } from '../keyspace/index.ts';

export interface FenceStep {
  command: string;
  reply: string | null;
}

export interface FenceReport {
  expected: string;
  outcome: 'verified' | 'claimed';
  steps: FenceStep[];
}

export class FenceError extends Error {
  readonly expected: string;
  readonly found: string | null;
  readonly steps: FenceStep[];

  constructor(message: string, expected: string, found: string | null, steps: FenceStep[]) {
    super(message);
    this.name = 'FenceError';
    this.expected = expected;
    this.found = found;
    this.steps = steps;
  }
}

async function step(
  client: Valkey,
  steps: FenceStep[],
  command: string,
  ...args: string[]
): Promise<string | null> {
  const reply = (await client.call(command, ...args)) as string | null;
  steps.push({ command: [command, ...args].join(' '), reply });
  return reply;
}

function refuse(label: string, expected: string, found: string | null, steps: FenceStep[]): never {
  const what = found === null ? 'none' : JSON.stringify(found);
  throw new FenceError(
    `${label} refuses this server: expected wire identity ${JSON.stringify(expected)} at ${versionKey()} but found ${what}`,
    expected,
    found,
    steps,
  );
}

/**
 * The wire 4 fence: its own identity → go on; absent → claim it with SET NX and go on only if the
 * read-back is its own (another connector may have won the race); anything else → refuse.
 */
export async function claimingFence(
  client: Valkey,
  identity: string,
  label = 'the wire 4 connector',
): Promise<FenceReport> {
  const steps: FenceStep[] = [];
  const found = await step(client, steps, 'GET', versionKey());
  if (found === identity) return { expected: identity, outcome: 'verified', steps };
  if (found !== null) refuse(label, identity, found, steps);
  await step(client, steps, 'SET', versionKey(), identity, 'NX');
  const readBack = await step(client, steps, 'GET', versionKey());
  if (readBack !== identity) refuse(label, identity, readBack, steps);
  return { expected: identity, outcome: 'claimed', steps };
}

/**
 * The wire 6 fence: it reads and never claims, since on a native node the identity is installed by an
 * operator. Absent → refuse as not installed; another identity → refuse.
 */
export async function readingFence(
  client: Valkey,
  identity: string,
  label = 'the wire 6 connector',
): Promise<FenceReport> {
  const steps: FenceStep[] = [];
  const found = await step(client, steps, 'GET', versionKey());
  if (found === null) {
    throw new FenceError(
      `${label} refuses this server: wire identity ${JSON.stringify(identity)} is not installed at ${versionKey()} (found none); install it administratively first`,
      identity,
      null,
      steps,
    );
  }
  if (found !== identity) refuse(label, identity, found, steps);
  return { expected: identity, outcome: 'verified', steps };
}
