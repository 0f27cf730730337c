// Runs one sequence of transitions through two executors, each on its own database, and compares them
// after every step: the replies must be equal, and so must the keyspaces — key by key, type, fields,
// members, and scores within the time the step that wrote them took (a score from the server clock keeps
// the window of the step that last set it, on either side). The explorer and the conformance suite share it.

import type { Valkey } from 'iovalkey';
import { IdMinter } from '../contract/keyspace/index.ts';
import { seededRandom } from '../seeded-random.ts';
import { compareKeyspaces, dumpInServer, type KeyspaceDump } from '../inspect/keyspace-dump.ts';
import { callFor } from '../contract/calls.ts';
import type { Executor } from '../executors/executor.ts';
import type { Call } from '../contract/transitions.ts';
import { settle, WireError } from '../executors/wire-error.ts';
import type { ReplyOrError, Step } from '../contract/experiments/two-executors.ts';

export { STEPS, type Step } from '../contract/experiments/two-executors.ts';

export interface Side {
  executor: Executor;
  /** A client on the executor's own database, for reading its keyspace. */
  reader: Valkey;
  /** Only keys matching this SCAN pattern are read (a queue's keys, on a node other runs share). */
  match?: string;
}

export interface StepResult {
  step: Step;
  call: Call;
  replies: [ReplyOrError, ReplyOrError];
  keyspaces: [KeyspaceDump, KeyspaceDump];
  windowMs: number;
  differences: string[];
}

/** Chooses each step's call from what came before: which ids exist, which claim is held. */
class SequenceState {
  private readonly minter: IdMinter;
  private readonly queue: string;
  private enqueued: string[] = [];
  private claims: Array<{ id: string; attempts: number }> = [];

  constructor(queue: string, node: number) {
    this.queue = queue;
    this.minter = new IdMinter(node);
  }

  callFor(step: Step, pick: () => number): Call {
    const q = this.queue;
    const claim = this.claims.length ? this.claims[Math.floor(pick() * this.claims.length)]! : null;
    switch (step) {
      case 'enqueue':
        return callFor('enqueue', q, {
          id: this.remember(this.minter.mint()),
          payload: `payload ${this.enqueued.length}`,
        });
      case 'duplicate': {
        const id = this.enqueued.length
          ? this.enqueued[Math.floor(pick() * this.enqueued.length)]!
          : this.minter.mint();
        return callFor('enqueue', q, { id: this.remember(id), payload: 'a duplicate' });
      }
      case 'schedule':
        // Run-at 0 is due at once, so a later promote has work to do.
        return callFor('schedule', q, {
          id: this.remember(this.minter.mint()),
          payload: 'later',
          run_at_ms: pick() < 0.5 ? 0 : 4_102_444_800_000,
        });
      case 'claim':
        return callFor('claim', q, { lease_ms: pick() < 0.3 ? 0 : 30_000 });
      case 'complete':
        return callFor('complete', q, { id: claim?.id ?? this.minter.mint(), token: claim?.attempts ?? 1 });
      case 'stale':
        return callFor('complete', q, {
          id: claim?.id ?? this.minter.mint(),
          token: (claim?.attempts ?? 0) + 1,
        });
      case 'retry':
        return callFor('retry', q, {
          id: claim?.id ?? this.minter.mint(),
          token: claim?.attempts ?? 1,
          delay_ms: 0,
          max_attempts: 2,
          error: 'boom',
        });
      case 'promote':
        return callFor('promote', q, { batch: 10 });
      case 'reap':
        return callFor('reap', q, { batch: 10 });
    }
  }

  /** Learns from the reply: a claim's [id, payload, attempts] is the token later steps carry. */
  observe(call: Call, reply: ReplyOrError): void {
    if (call.transition === 'claim' && Array.isArray(reply)) {
      this.claims = this.claims.filter((c) => c.id !== reply[0]);
      this.claims.push({ id: reply[0], attempts: reply[2] });
    }
    if ((call.transition === 'complete' || call.transition === 'retry') && reply === 1) {
      this.claims = this.claims.filter((c) => c.id !== call.args[0]);
    }
  }

  private remember(id: string): string {
    if (!this.enqueued.includes(id)) this.enqueued.push(id);
    return id;
  }
}

async function replyOf(executor: Executor, call: Call): Promise<ReplyOrError> {
  const reply = await settle(() => executor.run(call));
  return reply instanceof WireError ? { error: reply.message } : reply;
}

/** Runs `steps` on both sides; `onStep` sees each result as it comes (return false to stop early). */
export async function runSequence(
  steps: readonly Step[],
  sides: [Side, Side],
  options: { queue?: string; seed?: number; onStep?: (result: StepResult) => boolean | void } = {},
): Promise<StepResult[]> {
  const state = new SequenceState(options.queue ?? 'orders', (options.seed ?? 1) % 1024);
  const pick = seededRandom(options.seed ?? 1);
  const results: StepResult[] = [];
  // Each member's score may differ by the window of the step that last set it on either side: a lease
  // written during a slow step stays that far apart through the quick steps after it.
  const windows = new Map<string, number>();
  let previous: [KeyspaceDump, KeyspaceDump] | null = null;
  for (const step of steps) {
    const call = state.callFor(step, pick);
    const started = Date.now();
    const replies = (await Promise.all(sides.map((side) => replyOf(side.executor, call)))) as [
      ReplyOrError,
      ReplyOrError,
    ];
    const windowMs = Date.now() - started + 1;
    state.observe(call, replies[0]);
    const keyspaces = (await Promise.all(
      sides.map((side) => dumpInServer(side.reader, 1000, side.match)),
    )) as [KeyspaceDump, KeyspaceDump];
    keyspaces.forEach((dump, side) => {
      for (const [key, value] of Object.entries(dump)) {
        if (value.type !== 'zset') continue;
        const before = previous?.[side]?.[key];
        const old = new Map(before?.type === 'zset' ? before.value : []);
        for (const [member, score] of value.value) {
          if (old.get(member) !== score) windows.set(`${key}\u0000${member}`, windowMs);
        }
      }
    });
    previous = keyspaces;
    const differences = compareKeyspaces(
      keyspaces[0],
      keyspaces[1],
      (key, member) => windows.get(`${key}\u0000${member}`) ?? windowMs,
    );
    if (JSON.stringify(replies[0]) !== JSON.stringify(replies[1])) {
      differences.unshift(`replies differ: ${JSON.stringify(replies[0])} vs ${JSON.stringify(replies[1])}`);
    }
    const result = { step, call, replies, keyspaces, windowMs, differences };
    results.push(result);
    if (options.onStep?.(result) === false) break;
  }
  return results;
}
