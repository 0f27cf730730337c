// Builds each transition's call from a queue name and typed arguments, with keys from the keyspace.
// The admission verbs run the admission check here, before anything can reach a server.

import { jobKey, laneKey, queueKey, rowBase, validQueue } from '../keyspace/index.ts';
import type { Call } from './transitions.ts';

/** A whole number 0..2^53-1 as a wire argument, or a RangeError naming the argument. */
function count(name: string, value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `${name} must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, found ${value}`,
    );
  }
  return String(value);
}

export function enqueueCall(queue: string, id: string, payload: string): Call {
  validQueue(queue);
  return {
    transition: 'enqueue',
    keys: [jobKey(queue, id), queueKey(queue, 'pending')],
    args: [id, payload],
  };
}

export function scheduleCall(queue: string, id: string, payload: string, runAtMs: number): Call {
  validQueue(queue);
  return {
    transition: 'schedule',
    keys: [jobKey(queue, id), queueKey(queue, 'schedule')],
    args: [id, payload, count('run_at_ms', runAtMs)],
  };
}

export function claimCall(queue: string, leaseMs: number): Call {
  return {
    transition: 'claim',
    keys: [queueKey(queue, 'pending'), queueKey(queue, 'active'), rowBase(queue)],
    args: [count('lease_ms', leaseMs)],
  };
}

export function completeCall(queue: string, id: string, token: number | string): Call {
  return {
    transition: 'complete',
    keys: [queueKey(queue, 'active'), jobKey(queue, id), queueKey(queue, 'metrics:completed')],
    args: [id, String(token)],
  };
}

export interface RetryOptions {
  delayMs: number;
  maxAttempts: number;
  error: string;
}

export function retryCall(queue: string, id: string, token: number | string, options: RetryOptions): Call {
  return {
    transition: 'retry',
    keys: [
      queueKey(queue, 'active'),
      queueKey(queue, 'schedule'),
      queueKey(queue, 'dead'),
      jobKey(queue, id),
      queueKey(queue, 'metrics:failed'),
    ],
    args: [
      id,
      String(token),
      count('delay_ms', options.delayMs),
      count('max_attempts', options.maxAttempts),
      options.error,
    ],
  };
}

export function promoteCall(queue: string, batch: number): Call {
  return {
    transition: 'promote',
    keys: [queueKey(queue, 'schedule'), queueKey(queue, 'pending'), rowBase(queue)],
    args: [count('batch', batch)],
  };
}

export function reapCall(queue: string, batch: number): Call {
  return {
    transition: 'reap',
    keys: [queueKey(queue, 'active'), queueKey(queue, 'pending'), rowBase(queue)],
    args: [count('batch', batch)],
  };
}

export function laneEnqueueCall(queue: string, group: string, id: string, payload: string): Call {
  validQueue(queue);
  return {
    transition: 'laneEnqueue',
    keys: [
      jobKey(queue, id),
      laneKey(queue, group),
      queueKey(queue, 'ring'),
      queueKey(queue, 'paused'),
      queueKey(queue, 'glimit'),
      queueKey(queue, 'gactive'),
    ],
    args: [id, payload, group],
  };
}
