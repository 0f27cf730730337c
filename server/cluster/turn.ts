// What every turn of the sandbox shares, whether a lock (run-lock.ts) or a line (turn-line.ts): what its
// holder can ask of it, how it is kept while the work runs, the answer to a taker that waited its bound,
// and how a holder's token is read.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { catalogueText } from '../contract/catalogue/catalogue-text.ts';
import { BusyError } from '../catalogue/busy.ts';
import { processRuns } from '../sandbox/process-runs.ts';

export class LockBusyError extends BusyError {
  constructor(name: string, waitedMs: number) {
    super(catalogueText('BUSY', { lock: name, ms: waitedMs }, 'lock'));
    this.name = 'LockBusyError';
  }
}

/** What a holder can ask of its turn while it runs. */
export interface Turn {
  /** False once a renewal found the turn gone or another's (it may no longer be ours alone). */
  held(): boolean;
}

/**
 * Runs `work` in a turn kept by `renew`, sent every `everyMs`: a renewal answering false means the turn
 * is no longer ours alone (the work's held() turns false); one that fails (a node restarting) is tried
 * again at the next, well before the turn expires. A run whose deadline has passed does no work.
 */
export async function whileRenewed<T>(
  renew: () => Promise<boolean>,
  everyMs: number,
  work: (turn: Turn) => Promise<T>,
  run?: AbortSignal,
): Promise<T> {
  let held = true;
  const renewal = setInterval(() => {
    renew().then(
      (still) => void (still || (held = false)),
      () => {}, // the next renewal tries again
    );
  }, everyMs);
  renewal.unref();
  try {
    run?.throwIfAborted();
    return await work({ held: () => held });
  } finally {
    clearInterval(renewal);
  }
}

/** A holder's token: `<host>:<pid>:<random>`, so a taker on the same host can tell a dead holder. */
export function holderToken(): string {
  return `${hostname()}:${process.pid}:${randomBytes(12).toString('base64url')}`;
}

/** Whether a token names this host and a pid that no longer runs (a site killed mid-turn). */
export function holderDead(token: string): boolean {
  const match = /^(.+):(\d+):[A-Za-z0-9_-]+$/.exec(token);
  return match !== null && match[1] === hostname() && !processRuns(Number(match[2]));
}
