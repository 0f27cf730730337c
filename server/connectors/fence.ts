// The fence a connector runs on its connection before any transition: it keeps speakers that disagree
// about the wire out of one keyspace. Every step is recorded, so the course can show it as it happened.

import type { Valkey } from 'iovalkey';
import { StacklessError } from '../contract/stackless-error.ts';
import { catalogueText, quoted } from '../contract/catalogue/catalogue-text.ts';
import { versionKey, WIRE4_IDENTITY, WIRE6_IDENTITY } from '../contract/keyspace/index.ts';

export interface FenceStep {
  command: string;
  reply: string | null;
}

export interface FenceReport {
  expected: string;
  outcome: 'verified' | 'claimed';
  steps: FenceStep[];
}

/** A refusal the reserve shows, with its steps. */
export class FenceError extends StacklessError {
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

/** Which wire a connector speaks, as its refusals name it. */
type Wire = 'wire 4' | 'wire 6';

/** One run of a fence: the wire it guards, the identity it expects, and every step it took so far. */
class FenceRun {
  readonly steps: FenceStep[] = [];
  private readonly client: Valkey;
  private readonly wire: Wire;
  private readonly expected: string;

  constructor(client: Valkey, wire: Wire, expected: string) {
    this.client = client;
    this.wire = wire;
    this.expected = expected;
  }

  async send(command: string, ...args: string[]): Promise<string | null> {
    const reply = (await this.client.call(command, ...args)) as string | null;
    this.steps.push({ command: [command, ...args].join(' '), reply });
    return reply;
  }

  /** What `{emq}:version` holds now. */
  read(): Promise<string | null> {
    return this.send('GET', versionKey());
  }

  report(outcome: FenceReport['outcome']): FenceReport {
    return { expected: this.expected, outcome, steps: this.steps };
  }

  /** Refuses the server for what was found at `{emq}:version`: another identity, or none. */
  refuse(found: string | null, none: 'vanished' | 'not-installed' = 'vanished'): never {
    const identity = quoted(this.expected);
    const message =
      found === null
        ? catalogueText('FenceError', { wire: this.wire, identity }, none)
        : catalogueText('FenceError', { wire: this.wire, identity, found: quoted(found) }, 'foreign');
    throw new FenceError(message, this.expected, found, this.steps);
  }
}

/**
 * The wire 4 fence: its own identity → go on; absent → claim it with SET NX and go on only if the
 * read-back is its own (another connector may have won the race); anything else → refuse.
 */
export async function claimingFence(client: Valkey): Promise<FenceReport> {
  const fence = new FenceRun(client, 'wire 4', WIRE4_IDENTITY);
  const found = await fence.read();
  if (found === WIRE4_IDENTITY) return fence.report('verified');
  if (found !== null) fence.refuse(found);
  await fence.send('SET', versionKey(), WIRE4_IDENTITY, 'NX');
  const readBack = await fence.read();
  if (readBack !== WIRE4_IDENTITY) fence.refuse(readBack);
  return fence.report('claimed');
}

/**
 * The wire 6 fence: it reads and never claims, since on a native node the identity is installed by an
 * operator. Absent → refuse as not installed; another identity → refuse.
 */
export async function readingFence(client: Valkey): Promise<FenceReport> {
  const fence = new FenceRun(client, 'wire 6', WIRE6_IDENTITY);
  const found = await fence.read();
  if (found !== WIRE6_IDENTITY) fence.refuse(found, 'not-installed');
  return fence.report('verified');
}
