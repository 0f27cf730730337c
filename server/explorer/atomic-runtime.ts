// The second cluster, three Valkey 9.1 nodes with trafikey, where the reshard's atomic mode runs. Nothing
// waits for it: the site serves while Valkey 9 is still being built (scripts/valkey9.sh), and a run
// asking before the cluster is up is told "being built" or "not available".

import nodeCluster from 'node:cluster';
import type { Cluster, Valkey } from 'iovalkey';
import { slot } from '../contract/keyspace/index.ts';
import { answersPing, connectCluster, type ClusterAccess } from '../cluster/handle.ts';
import { RunLocks } from '../cluster/run-lock.ts';
import { deleteEveryQueueKey } from '../cluster/queue-keys.ts';
import { cancelMigrations } from '../cluster/slot-migrations.ts';
import { readShards } from '../sandbox/cluster-topology.ts';
import { fromPrimary, type Shared } from '../cluster/share.ts';
import { startCluster } from '../sandbox/cluster.ts';
import { EXPLORER_USER, explorerUserArgs, installExplorerUser, newPassword } from './explorer-user.ts';
import { outsideRun, settledWithin } from '../run-deadline.ts';
import { ADMIN_USER } from '../sandbox/sandbox.ts';
import { valkey9Build, Valkey9UnavailableError } from '../sandbox/valkey9-build.ts';
import { nativeModulePath } from '../sandbox/valkey-process.ts';
import {
  ATOMIC_RETRY_START_MS,
  ATOMIC_START_WAIT_MS,
  CLEANUP_RETRY_FIRST_MS,
  CLEANUP_RETRY_MOST_MS,
  CLEANUP_TURN_WAIT_MS,
  HEALTH_PING_MS,
  MAXMEMORY,
} from '../settings/bounds.ts';

export type AtomicRuntime = Awaited<ReturnType<typeof connect>>;

/** The one turn every atomic run takes on the Valkey 9 cluster: nothing else runs there. */
export const ATOMIC_RUN_LOCK = 'reshard-atomic';

/** The name the primary of WORKERS=n shares its Valkey 9 cluster under (cluster/share.ts). */
const SHARED = 'Valkey 9 cluster';

// This process's hold on the cluster, one per process as this module is (see runtime.ts). A start that
// failed is said as `failure`, and tried again by a request after ATOMIC_RETRY_START_MS.
let started: Promise<AtomicRuntime> | undefined;
let failure: { why: string; at: number } | undefined;
let watching: NodeJS.Timeout | undefined;
/** When this worker last heard its primary's cluster was not running: asked again a second later. */
let notRunningAt = 0;

/** The one handle on `access`; `stop` stops the cluster itself when this process started it. */
async function connect(access: ClusterAccess, stop = async () => {}) {
  const prepare = (admin: Valkey) => installExplorerUser(admin, access.explorer.password);
  const handle = await connectCluster(access, { prepare }).catch(async (error) => {
    await stop();
    throw error;
  });
  const close = async () => {
    handle.disconnect();
    await stop();
  };
  return { ...handle, close };
}

/** Started by the primary of WORKERS=n (or a site of one process): a killed worker leaves nothing running. */
async function start(server: string): Promise<AtomicRuntime> {
  // A worker waits for its primary to start it: three servers and their join.
  if (nodeCluster.isWorker) return connect((await fromPrimary<ClusterAccess>(SHARED, 60_000))!);
  const module = nativeModulePath();
  const admin = { username: ADMIN_USER, password: newPassword() };
  const explorer = { username: EXPLORER_USER, password: newPassword() };
  const sandbox = await startCluster({
    binary: server,
    module,
    admin,
    peerAuth: true,
    maxmemory: MAXMEMORY.atomicNode,
    args: explorerUserArgs(explorer.password, module !== null),
  });
  return connect({ seeds: sandbox.seeds, admin, explorer }, sandbox.stop);
}

/** Started on first call once built; Valkey9UnavailableError while building, or saying why it cannot be. */
export async function atomicRuntime(env: NodeJS.ProcessEnv = process.env): Promise<AtomicRuntime> {
  if (started) return started;
  const build = valkey9Build(env);
  if (build.state === 'building') {
    // Asked again every few seconds: the cluster starts as soon as the build is ready.
    watching ??= setTimeout(() => {
      watching = undefined;
      atomicRuntime(env).catch(() => {});
    }, 3000).unref();
    throw new Valkey9UnavailableError('building');
  }
  if (build.state === 'absent') throw new Valkey9UnavailableError('absent', build.why);
  if (failure && Date.now() - failure.at < ATOMIC_RETRY_START_MS)
    throw new Valkey9UnavailableError('absent', failure.why);
  started = outsideRun(() => start(build.server)).catch((error: Error) => {
    started = undefined;
    failure = { why: `its cluster did not start (${error.message.split('\n', 1)[0]})`, at: Date.now() };
    throw new Valkey9UnavailableError('absent', failure.why);
  });
  return started;
}

/** The cluster for a run, waited for ATOMIC_START_WAIT_MS at most: a run's time must not go on its start. */
export function atomicRuntimeForRun(): Promise<AtomicRuntime> {
  return settledWithin(ATOMIC_START_WAIT_MS, () => new Valkey9UnavailableError('starting'), atomicRuntime());
}

// This process's cluster if up within `waitMs`; null while starting; undefined if none or failed.
async function startedWithin(waitMs: number): Promise<AtomicRuntime | null | undefined> {
  if (!started) return undefined;
  const late = new Promise<null>((resolve) => setTimeout(() => resolve(null), waitMs));
  return Promise.race([started, late]).catch(() => undefined);
}

/** Where the atomic half stands: for the page's status line and GET /api/sandbox. */
export interface AtomicStatus {
  state: 'up' | 'degraded' | 'down' | 'starting' | 'building' | 'absent';
  message: string;
  version?: string;
}

/**
 * What the atomic half can say now, without starting anything: once up, each node's own `cluster_state`.
 * A worker that has run nothing atomic yet connects to its primary's cluster first, so every process
 * answers from the servers, not from its own past.
 */
export async function atomicStatus(env: NodeJS.ProcessEnv = process.env): Promise<AtomicStatus> {
  if (!started) await adoptAtomicCluster(env);
  const runtime = await startedWithin(50);
  if (runtime === null) return { state: 'starting', message: 'the Valkey 9.1 cluster is starting' };
  if (runtime) {
    const { version } = runtime;
    const problems = await runtime.stateProblems();
    if (problems.length === 0) return { state: 'up', message: `Valkey ${version}`, version };
    const state = problems.some((line) => /does not answer/.test(line)) ? 'down' : 'degraded';
    return { state, message: `Valkey ${version}: ${problems.join('; ')}`, version };
  }
  const build = valkey9Build(env);
  if (build.state === 'building') return { state: 'building', message: 'Valkey 9.1 is being built' };
  if (build.state === 'absent') return { state: 'absent', message: `not available: ${build.why}` };
  if (failure) return { state: 'absent', message: `not available: ${failure.why}` };
  return { state: 'starting', message: 'Valkey 9.1 is built; its cluster starts on first use' };
}

/** In a worker, before it serves and on a status while it holds none: its primary's cluster if it runs. */
export async function adoptAtomicCluster(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (!nodeCluster.isWorker || Date.now() - notRunningAt < HEALTH_PING_MS) return;
  if (valkey9Build(env).state !== 'ready') return;
  const running = await fromPrimary<ClusterAccess>(SHARED, 1000, true).catch(() => null);
  if (started) return; // a run connected meanwhile
  if (!running) return void (notRunningAt = Date.now());
  const connecting = connect(running).catch((error: Error) => {
    if (started === connecting) started = undefined;
    throw error;
  });
  started = connecting;
  // Connecting takes a few round trips: a status waits for them (bounded), not "starting".
  await startedWithin(ATOMIC_START_WAIT_MS);
}

/** In the primary: its Valkey 9 cluster for its workers, started on `get()`, never by `ifUp()`. */
export const sharedAtomicCluster: Record<string, Shared<ClusterAccess>> = {
  [SHARED]: {
    get: async () => (await atomicRuntime()).access,
    ifUp: async () => (await startedWithin(0))?.access ?? null,
  },
};

/** The slot of the site's own locks and lines on the Valkey 8 cluster (all share one hashtag). */
export const LOCK_SLOT = slot(RunLocks.key('any'));

/**
 * What is wrong with the Valkey 8 node holding the site's locks, or null: an atomic run takes its share
 * there, and with that node frozen atomic runs failed (503 TIMEOUT) while the atomic half said "up".
 */
export async function lockNodeProblem(admin: Cluster, node: (address: string) => Valkey) {
  const address = (admin.slots[LOCK_SLOT] as string[] | undefined)?.[0];
  const what = `the Valkey 8 node holding the site's locks (slot ${LOCK_SLOT}${address ? `, ${address}` : ''})`;
  if (!address) return `no node is known to serve ${what}`;
  if (await answersPing(node(address))) return null;
  return `${what} does not answer, and every atomic run takes its turn there`;
}

/** Each Valkey 9.1 node and whether it answers (`emq_server_up`); none while no cluster runs here. */
export async function atomicServers() {
  const runtime = await startedWithin(50);
  if (!runtime) return [];
  return (await runtime.servers()).map((node) => ({ ...node, role: 'atomic-cluster' as const }));
}

/** Starts the Valkey 9 cluster in the background when it is (or once it will be) built. */
export function warmAtomicRuntime(env: NodeJS.ProcessEnv = process.env): void {
  atomicRuntime(env).catch(() => {}); // being built (watched) or absent (said on the page)
}

/**
 * In the primary, after a worker died: what its atomic run left — a slot migration in flight (the servers
 * drive MIGRATESLOTS by themselves), its queue's keys on either end — is cleared in a turn of its own:
 * only atomic runs use this cluster, so every unfinished migration is cancelled and every queue key
 * removed (the site's own `{sandbox}:…` keys are not a queue's). Tried again (a node restarting) until
 * done or the cluster stopped; each step is a line for `say`.
 */
export async function clearAfterDeadProcess(say: (line: string) => void): Promise<void> {
  const held = started;
  const runtime = await held?.catch(() => null);
  if (!runtime) return;
  const clear = async () => {
    const addresses = (await readShards(runtime.clusterAdmin)).map(({ address }) => address);
    (await cancelMigrations(addresses, runtime.clusterAdminNode)).forEach(say);
    for (const address of addresses) {
      const removed = await deleteEveryQueueKey(runtime.clusterAdminNode(address));
      if (removed > 0) say(`${address}: removed ${removed} queue key(s) a dead run left`);
    }
  };
  for (let tries = 1; started === held; tries += 1) {
    try {
      await runtime.locks.line.with(ATOMIC_RUN_LOCK, clear, CLEANUP_TURN_WAIT_MS);
      return say(`clean-up done (try ${tries})`);
    } catch (error) {
      const pause = Math.min(CLEANUP_RETRY_FIRST_MS * 2 ** (tries - 1), CLEANUP_RETRY_MOST_MS);
      say(`clean-up try ${tries} failed (${(error as Error).message}); trying again in ${pause} ms`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** Stops the Valkey 9 cluster if this process started it (tests, shutdown). */
export async function closeAtomicRuntime(): Promise<void> {
  clearTimeout(watching);
  watching = undefined;
  const held = started;
  started = undefined;
  failure = undefined;
  if (held) await (await held.catch(() => null))?.close();
}
