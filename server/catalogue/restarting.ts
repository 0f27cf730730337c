// A sandbox node restarting, or its cluster settling after it: the one test of whether a failed run
// passes by itself once the node is back. Below the explorer, so a cluster run can wait for it and the
// API can answer it SANDBOX_DOWN from one list.

/**
 * The one list of a node restarting (killed and brought back by its supervisor) or of a cluster
 * settling after it: the replies it gives meanwhile (the explorer user not set up again yet, a slot
 * not served yet, a slot's keys in flight) and the socket errors of a server that is gone. A cluster
 * run waits for these and runs once more (cluster-run.ts); the API answers them SANDBOX_DOWN.
 */
const RESTARTING_REPLY = /^(CLUSTERDOWN|TRYAGAIN|LOADING|WRONGPASS|NOAUTH)\b/;
const GONE =
  /Stream isn't writeable|Connection is closed|ECONNREFUSED|ECONNRESET|EPIPE|MaxRetriesPerRequest|max retries|Too many Cluster redirections|cannot start|exited/i;

/**
 * A run found what it had just written gone: its node was killed and came back empty (the sandbox
 * keeps no data across a restart), so the run's proof is void and it goes again.
 */
export class NodeRestartedError extends Error {
  override name = 'NodeRestartedError';
}

/** Whether `error` passes by itself once the sandbox's restarting node is back. */
export function isRestarting(error: unknown): boolean {
  if (error instanceof NodeRestartedError) return true;
  return error instanceof Error && (RESTARTING_REPLY.test(error.message) || GONE.test(error.message));
}
