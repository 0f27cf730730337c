// The fence a connector runs on its connection before any transition: it keeps speakers that disagree
// about the wire out of one keyspace. Every step is recorded, so the course can show it as it happened.

import type { Valkey } from 'iovalkey';
import { catalogueText, quoted } from '../catalogue/catalogue-text.ts';
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

/** Which wire a connector speaks, as its refusals name it. */
type Wire = 'wire 4' | 'wire 6';

function refuse(wire: Wire, expected: string, found: string | null, steps: FenceStep[]): never {
  const identity = quoted(expected);
  const message =
    found === null
      ? catalogueText('FenceError', { wire, identity }, 'vanished')
      : catalogueText('FenceError', { wire, identity, found: quoted(found) }, 'foreign');
  throw new FenceError(message, expected, found, steps);
}

/**
 * The wire 4 fence: its own identity → go on; absent → claim it with SET NX and go on only if the
 * read-back is its own (another connector may have won the race); anything else → refuse.
 */
export async function claimingFence(
  client: Valkey,
  identity: string,
  wire: Wire = 'wire 4',
): Promise<FenceReport> {
  const steps: FenceStep[] = [];
  const found = await step(client, steps, 'GET', versionKey());
  if (found === identity) return { expected: identity, outcome: 'verified', steps };
  if (found !== null) refuse(wire, identity, found, steps);
  await step(client, steps, 'SET', versionKey(), identity, 'NX');
  const readBack = await step(client, steps, 'GET', versionKey());
  if (readBack !== identity) refuse(wire, identity, readBack, steps);
  return { expected: identity, outcome: 'claimed', steps };
}

/**
 * The wire 6 fence: it reads and never claims, since on a native node the identity is installed by an
 * operator. Absent → refuse as not installed; another identity → refuse.
 */
export async function readingFence(
  client: Valkey,
  identity: string,
  wire: Wire = 'wire 6',
): Promise<FenceReport> {
  const steps: FenceStep[] = [];
  const found = await step(client, steps, 'GET', versionKey());
  if (found === null) {
    const message = catalogueText('FenceError', { wire, identity: quoted(identity) }, 'not-installed');
    throw new FenceError(message, identity, null, steps);
  }
  if (found !== identity) refuse(wire, identity, found, steps);
  return { expected: identity, outcome: 'verified', steps };
}
