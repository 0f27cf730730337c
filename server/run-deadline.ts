// A run's deadline, known to everything the run calls without being handed down: the API starts each
// run inside `withinDeadline`, and what a run holds that can be let go early — its own cluster client,
// its place in line for a slot's turn — listens to `runDeadline()` and lets go when the deadline
// passes, so a run the reader was told had ended does not go on behind the answer. A slot move is never
// cut part-way: it finishes, or fails and is repaired, under its own deadlines. Beside it, the bound
// on one wait (`settledWithin`), which a start and a run's own steps put on what they wait for.

import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<AbortSignal>();

/** The deadline of the run this code is part of (aborted once it passed); undefined outside a run. */
export function runDeadline(): AbortSignal | undefined {
  return current.getStore();
}

/**
 * `promise`, or past `ms` a rejection with `late()` (called then, so it may cut what is late first);
 * the timer goes when either settles. One promise of its own, not a race and a timer's promise: a run
 * passes here and through `withinDeadline` once each.
 */
export function settledWithin<T>(ms: number, late: () => Error, promise: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(late()), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * `work` as a run with `ms` to go: past it, the run's deadline aborts with `late()` and this rejects
 * with the same error, whether or not `work` has let go yet.
 */
export function withinDeadline<T>(ms: number, late: () => Error, work: () => Promise<T>): Promise<T> {
  const deadline = new AbortController();
  let running: Promise<T>;
  try {
    running = current.run(deadline.signal, work);
  } catch (error) {
    return Promise.reject(error);
  }
  // The deadline aborts (what listens lets go) with the very error the run is rejected with.
  const expired = () => {
    const error = late();
    deadline.abort(error);
    return error;
  };
  return settledWithin(ms, expired, running);
}

/**
 * `work` outside any run: what a process starts once and shares (a runtime, its watchers and timers)
 * must not take on the deadline of the run that happened to start it.
 */
export function outsideRun<T>(work: () => T): T {
  return current.exit(work);
}
