// The server's own waits and bounds: fixed, neither a reader's to send (limits.ts) nor a deployer's to
// set (environment.ts), each named here with its reason. docs/api.md's Limits table states the ones a
// reader or deployer meets; tests/unit/limits-doc.test.ts holds it to these. Free of Node APIs.

/** Every start step together is bounded by this: a sandbox that cannot be used fails the start. */
export const START_BUDGET_MS = 12_000;
/** An admin's connection to a server (at start, and each reconnect): time to connect, and to answer. */
export const ADMIN_CONNECT_MS = 3000;
export const ADMIN_ANSWER_MS = 3000;
/** A dropped connection tries again 100 ms later, then 100 ms more each try, at most a second apart. */
export function reconnectAfter(tries: number): number {
  return Math.min(tries * 100, 1000);
}
/** The sandbox is up only while every server it reaches answers a PING within this. */
export const HEALTH_PING_MS = 1000;

/** The most keyspaces a site leases, whatever its Valkey offers (fewer when it has fewer databases). */
export const MAX_KEYSPACES = 24;
/** A run waits this long in line for a free keyspace, then is told the sandbox is busy. */
export const KEYSPACE_WAIT_MS = 5000;
/** A run's new keyspace connection gives up after this long (the server is down or unreachable). */
export const KEYSPACE_CONNECT_MS = 2000;
/** How often the first run in line looks for leases other processes gave back. */
export const LEASE_POLL_MS = 50;
/** Tries at giving a run's leases back, and the pause between them (the leases expire anyway). */
export const LEASE_GIVE_TRIES = 10;
export const LEASE_GIVE_RETRY_MS = 500;

/**
 * Run clients kept per shared cluster: a run has one to itself, and keeping them saves a run connecting
 * to every node; a run finding them all busy waits in line for one.
 */
export const CLUSTER_CLIENTS = 32;
/** How long a run waits in line for a cluster client before it is told the sandbox is busy. */
export const CLUSTER_CLIENT_WAIT_MS = 5000;
/**
 * How long a cluster run waits for its turn — its slot's, or the sandbox's one migration turn that the
 * reshard takes — before it is told the sandbox is busy.
 */
export const TURN_WAIT_MS = 10_000;
/** A ticket in a turn's line (the reshards') lives this long unless its process renews it. */
export const LINE_LEASE_MS = 6000;
/** How often a ticket second in line asks whether it is first (further back: that many times as long). */
export const LINE_LOOK_MS = 25;
/** What a turn of a line is taken to last until one has been timed (the line's bound is reckoned by it). */
export const LINE_TURN_GUESS_MS = 1000;
/** The `retry-after` of a reader's second reshard while the first is queued or running. */
export const SHARE_RETRY_S = 1;
/** How long a console run on the cluster waits for each slot's turn: it may hold several. */
export const CONSOLE_TURN_WAIT_MS = 5000;
/** How often the cluster is checked (and a half-done move finished or undone). */
export const CLUSTER_CHECK_EVERY_MS = 10_000;
/** How long the check at start waits for the migration turn: a killed site's turn must expire first. */
export const CLUSTER_START_CHECK_WAIT_MS = 25_000;
/**
 * A sandbox cluster node is marked failed by its peers after this long without an answer: longer than a
 * supervisor's restart or a freeze of 20 s (cluster.ts says why a mark only hurts there). Not much longer:
 * at 60 s a repaired slot's new owner lost out to late gossip now and then (cluster-degraded.test.ts).
 */
export const CLUSTER_NODE_TIMEOUT_MS = 30_000;
/** How long GET /readyz reuses one reading of the sandbox's state: a balancer's polls cost no ping each. */
export const READINESS_CACHE_MS = 1000;
/** How long one reading of the cluster's problems is reused: a status poll must not cost a check each. */
export const CLUSTER_STATUS_CACHE_MS = 1000;
/** How long every node may take to name a slot's new owner after a move. */
export const SLOT_SETTLE_MS = 10_000;

/** A server the sandbox starts must answer a PING within this. */
export const SERVER_BOOT_MS = 10_000;
/** How much of a sandbox server's latest output is kept, to say why it would not start or why it died. */
export const SERVER_OUTPUT_KEPT_BYTES = 16 * 1024;
/** A killed server is started again after the first pause, doubled each failed try up to the most. */
export const RESTART_FIRST_MS = 1000;
export const RESTART_MOST_MS = 4000;

/** The API waits this long past a run's deadline for the run to end before it answers TIMEOUT itself. */
export const RUN_ANSWER_MARGIN_MS = 1000;
/** MIGRATE's own timeout for one batch of keys moved to another node (a slot move, a repair). */
export const MIGRATE_TIMEOUT_MS = 5000;
/** How long the atomic reshard waits for the Valkey 9.1 cluster to finish starting (then: it is starting). */
export const ATOMIC_START_WAIT_MS = 3000;
/** The longest one atomic slot move may take before the run gives up on it (and cancels it). */
export const ATOMIC_MOVE_DEADLINE_MS = 6000;
/** A Valkey 9.1 cluster that failed to start (a loaded machine, a port taken) is tried again after this. */
export const ATOMIC_RETRY_START_MS = 15_000;

/** Memory of each server the site starts (`noeviction`: a full server refuses writes, never drops keys). */
export const MAXMEMORY = {
  /** The standalone node, every run's keyspaces. */
  standalone: '128mb',
  /** Each node of the Valkey 8 cluster. */
  clusterNode: '64mb',
  /** Each node of the Valkey 9.1 cluster, the atomic reshard's. */
  atomicNode: '128mb',
} as const;

/** Descriptors kept back from HTTP sockets for what is not one: Valkey connections, files, the runtime. */
export const RESERVED_DESCRIPTORS = 1024;

/**
 * A dead worker's clean-up on the Valkey 9.1 cluster takes its own turn in the atomic runs' line and
 * waits this long for it (behind any line a site holds: 12 runs of a few seconds each), and is tried
 * again until done: after the first pause, doubled each failed try up to the most.
 */
export const CLEANUP_TURN_WAIT_MS = 120_000;
export const CLEANUP_RETRY_FIRST_MS = 1000;
export const CLEANUP_RETRY_MOST_MS = 10_000;
