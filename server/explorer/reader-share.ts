// One reader, one place in a line: a reader's address may have one run of a kind queued or running at a
// time, across every process (a lock per address, refused at once), so a few addresses keeping many runs
// in flight take one place each. A run with no address (the server island) takes no share.

import { catalogueText } from '../contract/catalogue/catalogue-text.ts';
import { runCaller } from '../run-caller.ts';
import { SHARE_RETRY_S } from '../settings/bounds.ts';
import { LockBusyError, type RunLocks } from '../cluster/run-lock.ts';

/** This reader already has a run of this kind queued or running. */
export class ShareTakenError extends Error {
  readonly retryAfter = SHARE_RETRY_S;
  constructor() {
    super(catalogueText('RESHARD_QUEUED', { seconds: SHARE_RETRY_S }));
    this.name = 'ShareTakenError';
  }
}

export function shareLock(kind: string, address: string): string {
  return `${kind}-from:${address}`;
}

/** Runs `work` in the caller's one share of `kind`; refused at once (ShareTakenError) while it is taken. */
export async function inReaderShare<T>(locks: RunLocks, kind: string, work: () => Promise<T>): Promise<T> {
  const from = runCaller();
  if (from === undefined) return work();
  let started = false;
  try {
    return await locks.with(
      shareLock(kind, from),
      () => {
        started = true;
        return work();
      },
      0,
    );
  } catch (error) {
    // Busy before the work began is the share taken; busy from the work itself is the work's own.
    if (!started && error instanceof LockBusyError) throw new ShareTakenError();
    throw error;
  }
}
