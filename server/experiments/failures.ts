// What a failed run tells the reader. Each failure is named for whose it is: the sandbox's (down,
// restarting, busy with a long script), this site's own (out of file descriptors, every keyspace
// leased, the run's deadline) or ours (a bug: NOPERM means the explorer's ACL and the code disagree).
// Only the sandbox's own outage is SANDBOX_DOWN; only a bug is a 500, and only a bug is logged whole.

import { BusyError } from '../sandbox/busy.ts';
import { LeaseDeadlineError, SandboxLimitError } from '../sandbox/keyspace-pool.ts';
import { ClusterDegradedError, MigrationFailedError } from '../sandbox/slot-migration.ts';
import { Valkey9UnavailableError } from '../sandbox/valkey9-build.ts';

export interface Failure {
  status: number;
  code: string;
  message: string;
  /** Seconds a client should wait before trying again (sent as `retry-after`). */
  retryAfter?: number;
  /** A bug of ours: log it (rate-limited), answer INTERNAL. */
  bug?: boolean;
}

export class RunTimeoutError extends Error {
  constructor(ms: number) {
    super(`the run took over ${ms / 1000} s and was ended; its keyspace was flushed`);
    this.name = 'RunTimeoutError';
  }
}

/** The first word of a server error reply (ReplyError or our WireError), else null. */
function replyClass(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  if (error.name !== 'ReplyError' && error.name !== 'WireError') return null;
  return error.message.split(' ', 1)[0] ?? null;
}

const DOWN =
  /Stream isn't writeable|Connection is closed|ECONNREFUSED|ECONNRESET|EPIPE|MaxRetriesPerRequest|max retries|cannot start|exited/i;
const OUR_RESOURCES = /EMFILE|ENFILE|ENOBUFS|ENOMEM/;

export function classify(error: unknown): Failure {
  if (error instanceof BusyError) return { status: 503, code: 'BUSY', message: error.message, retryAfter: 2 };
  if (error instanceof Valkey9UnavailableError) {
    if (error.state === 'building')
      return { status: 503, code: 'VALKEY9_BUILDING', message: error.message, retryAfter: 30 };
    if (error.state === 'starting')
      return { status: 503, code: 'VALKEY9_STARTING', message: error.message, retryAfter: 3 };
    return { status: 503, code: 'VALKEY9_UNAVAILABLE', message: error.message };
  }
  if (error instanceof RunTimeoutError || error instanceof LeaseDeadlineError)
    return { status: 503, code: 'TIMEOUT', message: error.message, retryAfter: 5 };
  // A slot move that failed part-way was repaired before this answer; a cluster that could not be is
  // the sandbox's fault, not a bug of the reader's request.
  if (error instanceof MigrationFailedError)
    return { status: 503, code: 'RESHARD_FAILED', message: error.message, retryAfter: 2 };
  if (error instanceof ClusterDegradedError)
    return { status: 503, code: 'SANDBOX_DEGRADED', message: error.message, retryAfter: 5 };
  // The deployer's Valkey offers fewer keyspaces than the run needs: no bug of ours, and no outage.
  if (error instanceof SandboxLimitError)
    return { status: 503, code: 'SANDBOX_LIMIT', message: error.message, retryAfter: 30 };
  const reply = replyClass(error);
  if (reply === 'BUSY' || reply === 'LOADING' || reply === 'MASTERDOWN')
    return {
      status: 503,
      code: 'SANDBOX_BUSY',
      message: `the sandbox Valkey is busy (${reply}); try again in a few seconds`,
      retryAfter: 3,
    };
  if (reply === 'OOM')
    return {
      status: 503,
      code: 'SANDBOX_FULL',
      message: 'the sandbox Valkey is out of memory for now; try again in a few seconds',
      retryAfter: 5,
    };
  // WRONGPASS/NOAUTH: the server restarted and the explorer user is being set up again.
  // CLUSTERDOWN: a cluster node is restarting (its supervisor brings it back with its slots).
  if (
    reply === 'WRONGPASS' ||
    reply === 'NOAUTH' ||
    reply === 'CLUSTERDOWN' ||
    (error instanceof Error &&
      (DOWN.test(error.message) || /Too many Cluster redirections/.test(error.message)))
  )
    return {
      status: 503,
      code: 'SANDBOX_DOWN',
      message:
        'the sandbox Valkey is not answering right now; it restarts by itself, so try again in a few seconds',
      retryAfter: 3,
    };
  if (error instanceof Error && OUR_RESOURCES.test(`${error.message} ${(error as { code?: string }).code}`))
    return {
      status: 503,
      code: 'OVERLOADED',
      message: 'this site is at its connection limit right now; try again in a few seconds',
      retryAfter: 5,
    };
  return {
    status: 500,
    code: 'INTERNAL',
    message: 'the experiment failed on the server; the error was logged there',
    bug: true,
  };
}

/** Whether a failure is the sandbox's own outage (down or restarting), as the status line reports it. */
export function isOutage(error: unknown): boolean {
  return classify(error).code === 'SANDBOX_DOWN';
}
