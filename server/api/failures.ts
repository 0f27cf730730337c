// What a failed run tells the reader. Each failure is named for whose it is: the sandbox's (down,
// restarting, busy with a long script), this site's own (out of file descriptors, every keyspace
// leased, the run's deadline) or ours (a bug: NOPERM means the explorer's ACL and the code disagree).
// Only the sandbox's own outage is SANDBOX_DOWN; only a bug is a 500, and only a bug is logged whole.
// Every status, and every text this file writes, is read from the error catalogue's row.

import { catalogueText, statusOf } from '../contract/catalogue/catalogue-text.ts';
import type { StatusCode } from '../contract/catalogue/error-codes.ts';
import { RunTimeoutError } from '../catalogue/run-timeout.ts';
import { BusyError } from '../catalogue/busy.ts';
import { ShareTakenError } from '../explorer/reader-share.ts';
import { SandboxLimitError } from '../explorer/keyspace-pool.ts';
import {
  ClusterDegradedError,
  MigrationFailedError,
  SinglePrimaryError,
} from '../explorer/slot-migration.ts';
import { Valkey9UnavailableError } from '../sandbox/valkey9-build.ts';
import { isRestarting } from '../catalogue/restarting.ts';
import { isReplyError } from '../executors/wire-error.ts';

export { RunTimeoutError };

export interface Failure {
  status: number;
  code: StatusCode;
  message: string;
  /** Seconds a client should wait before trying again (sent as `retry-after`). */
  retryAfter?: number;
  /** A bug of ours: log it (rate-limited), answer INTERNAL. */
  bug?: boolean;
}

function failure(code: StatusCode, message: string, retryAfter?: number): Failure {
  return { status: statusOf(code), code, message, ...(retryAfter === undefined ? {} : { retryAfter }) };
}

/** The first word of a server error reply (ReplyError or our WireError), else null. */
function replyClass(error: unknown): string | null {
  if (!isReplyError(error)) return null;
  return error.message.split(' ', 1)[0] ?? null;
}

const OUR_RESOURCES = /EMFILE|ENFILE|ENOBUFS|ENOMEM/;

export function classify(error: unknown): Failure {
  if (error instanceof BusyError) return failure('BUSY', error.message, 2);
  if (error instanceof ShareTakenError) return failure('RESHARD_QUEUED', error.message, error.retryAfter);
  if (error instanceof Valkey9UnavailableError) {
    if (error.state === 'building') return failure('VALKEY9_BUILDING', error.message, 30);
    if (error.state === 'starting') return failure('VALKEY9_STARTING', error.message, 3);
    return failure('VALKEY9_UNAVAILABLE', error.message);
  }
  // The one class, whether the pool ended the run at its deadline or the API's later bound did.
  if (error instanceof RunTimeoutError) return failure('TIMEOUT', error.message, 5);
  // A slot move that failed part-way was repaired before this answer; a cluster that could not be is
  // the sandbox's fault, not a bug of the reader's request.
  if (error instanceof MigrationFailedError) return failure('RESHARD_FAILED', error.message, 2);
  if (error instanceof SinglePrimaryError) return failure('RESHARD_IMPOSSIBLE', error.message);
  if (error instanceof ClusterDegradedError) return failure('SANDBOX_DEGRADED', error.message, 5);
  // The deployer's Valkey offers fewer keyspaces than the run needs: no bug of ours, and no outage.
  if (error instanceof SandboxLimitError) return failure('SANDBOX_LIMIT', error.message, 30);
  const reply = replyClass(error);
  if (reply === 'BUSY' || reply === 'LOADING' || reply === 'MASTERDOWN')
    return failure('SANDBOX_BUSY', catalogueText('SANDBOX_BUSY', { reply }), 3);
  if (reply === 'OOM') return failure('SANDBOX_FULL', catalogueText('SANDBOX_FULL'), 5);
  if (isRestarting(error)) return failure('SANDBOX_DOWN', catalogueText('SANDBOX_DOWN'), 3);
  if (error instanceof Error && OUR_RESOURCES.test(`${error.message} ${(error as { code?: string }).code}`))
    return failure('OVERLOADED', catalogueText('OVERLOADED'), 5);
  return { ...failure('INTERNAL', catalogueText('INTERNAL', {}, 'run')), bug: true };
}
