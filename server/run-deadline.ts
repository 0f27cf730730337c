// A run's deadline, known to everything the run calls without being handed down: the API starts each
// run inside `withinDeadline`, and what a run holds that can be let go early — its own cluster client,
// its place in line for a slot's turn — listens to `runDeadline()` and lets go when the deadline
// passes, so a run the reader was told had ended does not go on behind the answer. A slot move is never
// cut part-way: it finishes, or fails and is repaired, under its own deadlines.

import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<AbortSignal>();

/** The deadline of the run this code is part of (aborted once it passed); undefined outside a run. */
export function runDeadline(): AbortSignal | undefined {
  return current.getStore();
}

/**
 * `work` as a run with `ms` to go: past it, the run's deadline aborts with `late()` and this rejects
 * with the same error, whether or not `work` has let go yet.
 */
export async function withinDeadline<T>(ms: number, late: () => Error, work: () => Promise<T>): Promise<T> {
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = late();
      reject(error);
      deadline.abort(error);
    }, ms);
  });
  try {
    return await Promise.race([current.run(deadline.signal, work), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `work` outside any run: what a process starts once and shares (a runtime, its watchers and timers)
 * must not take on the deadline of the run that happened to start it.
 */
export function outsideRun<T>(work: () => T): T {
  return current.exit(work);
}
