// The host's job verbs: each builds its call from the keyspace and runs it on the executor chosen.

import { callFor } from '../contract/calls.ts';
import type { Executor } from './executor.ts';
import type { WireError } from './wire-error.ts';

export interface RetryOptions {
  delayMs: number;
  maxAttempts: number;
  error: string;
}

export interface Claimed {
  id: string;
  payload: string;
  /** The fencing token: complete and retry must carry it. */
  attempts: number;
}

export class Jobs {
  readonly executor: Executor;

  constructor(executor: Executor) {
    this.executor = executor;
  }

  /** 1 when enqueued, 0 for a duplicate id. */
  async enqueue(queue: string, id: string, payload: string): Promise<number> {
    return (await this.executor.run(callFor('enqueue', queue, { id, payload }))) as number;
  }

  /** One pipeline of enqueues; the whole batch is checked before any of it is sent. */
  async enqueueMany(
    queue: string,
    jobs: ReadonlyArray<{ id: string; payload: string }>,
  ): Promise<Array<number | WireError>> {
    const calls = jobs.map(({ id, payload }) => callFor('enqueue', queue, { id, payload }));
    return (await this.executor.runMany(calls)) as Array<number | WireError>;
  }

  async schedule(queue: string, id: string, payload: string, runAtMs: number): Promise<number> {
    return (await this.executor.run(
      callFor('schedule', queue, { id, payload, run_at_ms: runAtMs }),
    )) as number;
  }

  /** The oldest pending job, or null when none is pending or the queue is paused. */
  async claim(queue: string, leaseMs: number): Promise<Claimed | null> {
    const reply = await this.executor.run(callFor('claim', queue, { lease_ms: leaseMs }));
    if (reply === null) return null;
    const [id, payload, attempts] = reply as [string, string, number];
    return { id, payload, attempts };
  }

  async complete(queue: string, id: string, token: number): Promise<number> {
    return (await this.executor.run(callFor('complete', queue, { id, token }))) as number;
  }

  /** 'scheduled' or 'dead', or 0 when the row is gone. */
  async retry(
    queue: string,
    id: string,
    token: number,
    options: RetryOptions,
  ): Promise<'scheduled' | 'dead' | 0> {
    return (await this.executor.run(
      callFor('retry', queue, {
        id,
        token,
        delay_ms: options.delayMs,
        max_attempts: options.maxAttempts,
        error: options.error,
      }),
    )) as 'scheduled' | 'dead' | 0;
  }

  async promote(queue: string, batch = 100): Promise<number> {
    return (await this.executor.run(callFor('promote', queue, { batch }))) as number;
  }

  async reap(queue: string, batch = 100): Promise<number> {
    return (await this.executor.run(callFor('reap', queue, { batch }))) as number;
  }

  async laneEnqueue(queue: string, group: string, id: string, payload: string): Promise<number> {
    return (await this.executor.run(callFor('laneEnqueue', queue, { id, payload, group }))) as number;
  }
}
