// The second cluster: three Valkey 9.1 nodes (scripts/valkey9.sh builds the binary), trafikey loaded
// and declaring atomic-slot-migration support, the explorer's account on every node. The atomic mode
// of the reshard experiment runs here. Nothing waits for it: the site serves the course while Valkey 9
// is still being built, and asking before the cluster is up answers "being built" or "not available".

import nodeCluster from 'node:cluster';
import { connectCluster, type ClusterAccess, type ClusterHandle } from '../cluster/handle.ts';
import { clearLeftovers } from '../cluster/leftovers.ts';
import { fromPrimary, type Shared } from '../cluster/share.ts';
import { startCluster } from '../sandbox/cluster.ts';
import type { Valkey } from 'iovalkey';
import { EXPLORER_USER, explorerUserArgs, installExplorerUser, newPassword } from './explorer-user.ts';
import { outsideRun, settledWithin } from '../run-deadline.ts';
import { ADMIN_USER } from '../sandbox/sandbox.ts';
import { valkey9Build, Valkey9UnavailableError } from '../sandbox/valkey9-build.ts';
import { nativeModulePath } from '../sandbox/valkey-process.ts';
import { clusterStateProblems } from '../sandbox/cluster-check.ts';
import {
  ATOMIC_RETRY_START_MS,
  ATOMIC_START_WAIT_MS,
  CLEANUP_RETRY_FIRST_MS,
  CLEANUP_RETRY_MOST_MS,
  CLEANUP_TURN_WAIT_MS,
  HEALTH_PING_MS,
  MAXMEMORY,
} from '../settings/bounds.ts';

/** The Valkey 9 cluster's access, and whether trafikey is loaded on every node. */
export interface AtomicCluster extends ClusterAccess {
  native: boolean;
}

/** The Valkey 9 cluster as this process holds it: the one cluster handle, and how to let it go. */
export interface AtomicRuntime extends ClusterHandle {
  access: AtomicCluster;
  close(): Promise<void>;
}

/** This process's hold on the Valkey 9 cluster: one per process, as this module is (see runtime.ts). */
interface Held {
  started?: Promise<AtomicRuntime>;
  failure?: string;
  /** When the cluster last failed to start: a later request tries again after ATOMIC_RETRY_START_MS. */
  failedAt?: number;
  watching?: NodeJS.Timeout;
}
const held: Held = {};

/** The one turn every atomic run takes on the Valkey 9 cluster: nothing else runs there. */
export const ATOMIC_RUN_LOCK = 'reshard-atomic';

/** The name the primary of WORKERS=n shares its Valkey 9 cluster under (cluster/share.ts). */
const SHARED = 'Valkey 9 cluster';
/** How long a worker waits for its primary to start the cluster (three servers and their join). */
const PRIMARY_ANSWER_MS = 60_000;
/** How long a worker's status waits for its primary to say whether the cluster runs. */
const PRIMARY_IF_UP_MS = 1000;

/** Starts this site's Valkey 9 cluster (in the primary of WORKERS=n, or in a site of one process). */
async function startOwnCluster(server: string): Promise<AtomicRuntime> {
  const password = newPassword();
  const module = nativeModulePath();
  const admin = { username: ADMIN_USER, password: newPassword() };
  const sandbox = await startCluster({
    binary: server,
    module,
    admin,
    peerAuth: true,
    maxmemory: MAXMEMORY.atomicNode,
    args: explorerUserArgs(password, module !== null),
  });
  const explorer = { username: EXPLORER_USER, password };
  return connect({ seeds: sandbox.seeds, admin, explorer, native: module !== null }, sandbox.stop);
}

/** The one handle on `access`; `stop` stops the cluster itself when this process started it. */
async function connect(
  access: AtomicCluster,
  stop: () => Promise<void> = async () => {},
): Promise<AtomicRuntime> {
  const prepare = (admin: Valkey) => installExplorerUser(admin, access.explorer.password);
  const handle = await connectCluster(access, { prepare }).catch(async (error) => {
    await stop();
    throw error;
  });
  const close = async () => {
    handle.disconnect();
    await stop();
  };
  return { ...handle, access, close };
}

/** A worker uses its primary's cluster: a killed worker leaves nothing running. */
async function start(server: string): Promise<AtomicRuntime> {
  if (!nodeCluster.isWorker) return startOwnCluster(server);
  return connect((await fromPrimary<AtomicCluster>(SHARED, PRIMARY_ANSWER_MS))!);
}

/**
 * The Valkey 9 cluster for a run: started on first call once the build is ready, and waited for at most
 * `waitMs` (a run's own time must not go on a cluster's start). Throws Valkey9UnavailableError while it
 * is being built or still starting, or when it cannot be (with why).
 */
export async function atomicRuntimeWithin(
  waitMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<AtomicRuntime> {
  return settledWithin(waitMs, () => new Valkey9UnavailableError('starting'), atomicRuntime(env));
}

/**
 * The Valkey 9 cluster, started on first call once the build is ready. Throws Valkey9UnavailableError
 * while it is being built, or when it cannot be (with why).
 */
export function atomicRuntime(env: NodeJS.ProcessEnv = process.env): Promise<AtomicRuntime> {
  if (held.started) return held.started;
  const build = valkey9Build(env);
  if (build.state === 'building') {
    watchBuild(env);
    throw new Valkey9UnavailableError('building');
  }
  if (build.state === 'absent') {
    throw new Valkey9UnavailableError('absent', build.why);
  }
  if (held.failure && Date.now() - (held.failedAt ?? 0) < ATOMIC_RETRY_START_MS) {
    throw new Valkey9UnavailableError('absent', held.failure);
  }
  held.started = outsideRun(() => start(build.server)).catch((error: Error) => {
    held.started = undefined;
    held.failure = `its cluster did not start (${error.message.split('\n', 1)[0]})`;
    held.failedAt = Date.now();
    throw new Valkey9UnavailableError('absent', held.failure);
  });
  return held.started;
}

/**
 * This process's cluster if it is up within `waitMs`; null while it is still starting; undefined when
 * none was asked for or its start failed.
 */
async function startedWithin(waitMs: number): Promise<AtomicRuntime | null | undefined> {
  if (!held.started) return undefined;
  const late = new Promise<null>((resolve) => setTimeout(() => resolve(null), waitMs));
  return Promise.race([held.started, late]).catch(() => undefined);
}

/** Where the atomic half stands: for the page's status line and GET /api/sandbox. */
export interface AtomicStatus {
  state: 'up' | 'degraded' | 'down' | 'starting' | 'building' | 'absent';
  message: string;
  version?: string;
}

/**
 * What the atomic half can say now, without starting anything: once its cluster is up, each node's
 * own `cluster_state` (CLUSTER INFO, within a second each): `down` while a node does not answer,
 * `degraded` while one says anything but ok, else `up`. A worker that has run nothing atomic yet reads
 * the same servers: its primary says whether the cluster runs, and the worker connects to it, so every
 * process answers from the servers, not from its own past.
 */
export async function atomicStatus(env: NodeJS.ProcessEnv = process.env): Promise<AtomicStatus> {
  if (!held.started && nodeCluster.isWorker) await adoptPrimaryCluster(env);
  const settled = await startedWithin(50);
  if (settled) return nodesStatus(settled);
  if (settled === null) return { state: 'starting', message: 'the Valkey 9.1 cluster is starting' };
  const build = valkey9Build(env);
  if (build.state === 'building') return { state: 'building', message: 'Valkey 9.1 is being built' };
  if (build.state === 'absent') return { state: 'absent', message: `not available: ${build.why}` };
  if (held.failure) return { state: 'absent', message: `not available: ${held.failure}` };
  return { state: 'starting', message: 'Valkey 9.1 is built; its cluster starts on first use' };
}

/** When this worker last heard its primary's cluster was not running: asked again a second later. */
let notRunningAt = 0;

/** In a worker: connects to the primary's Valkey 9 cluster if it runs (never starting it). */
async function adoptPrimaryCluster(env: NodeJS.ProcessEnv): Promise<void> {
  if (Date.now() - notRunningAt < HEALTH_PING_MS) return;
  if (valkey9Build(env).state !== 'ready') return;
  const running = await fromPrimary<AtomicCluster>(SHARED, PRIMARY_IF_UP_MS, true).catch(() => null);
  if (held.started) return; // a run connected meanwhile
  if (!running) return void (notRunningAt = Date.now());
  const started = connect(running).catch((error: Error) => {
    if (held.started === started) held.started = undefined;
    throw error;
  });
  held.started = started;
  // Connecting takes a few round trips: this status waits for them (bounded), not "starting".
  await Promise.race([started, new Promise((resolve) => setTimeout(resolve, ATOMIC_START_WAIT_MS))]).catch(
    () => {},
  );
}

/**
 * In a worker, before it serves: connected to its primary's Valkey 9 cluster if that runs (a worker
 * restarted after a kill, or started once the cluster was up), so its first status reads the servers.
 */
export function adoptAtomicCluster(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return nodeCluster.isWorker ? adoptPrimaryCluster(env) : Promise.resolve();
}

/** In the primary: its Valkey 9 cluster for its workers, started on `get()`, never by `ifUp()`. */
export const sharedAtomicCluster: Record<string, Shared<AtomicCluster>> = {
  [SHARED]: {
    get: async () => (await atomicRuntime()).access,
    ifUp: async () => (await startedWithin(0))?.access ?? null,
  },
};

async function nodesStatus(runtime: AtomicRuntime): Promise<AtomicStatus> {
  const { version } = runtime;
  const seeds = runtime.access.seeds.map(({ host, port }) => `${host}:${port}`);
  const problems = await clusterStateProblems(runtime.clusterAdminNode, seeds, HEALTH_PING_MS);
  if (problems.length === 0) return { state: 'up', message: `Valkey ${version}`, version };
  const state = problems.some((line) => /does not answer/.test(line)) ? 'down' : 'degraded';
  return { state, message: `Valkey ${version}: ${problems.join('; ')}`, version };
}

/**
 * Each Valkey 9.1 node and whether it answers a PING within HEALTH_PING_MS (the metrics'
 * `emq_server_up`); none while this process has no running cluster to ask (not started, or starting).
 */
export async function atomicServers(): Promise<
  Array<{ server: string; role: 'atomic-cluster'; up: boolean }>
> {
  const runtime = await startedWithin(50);
  if (!runtime) return [];
  return (await runtime.servers()).map((node) => ({ ...node, role: 'atomic-cluster' as const }));
}

/** While the build runs, look every few seconds and start the cluster as soon as it is ready. */
export function watchBuild(env: NodeJS.ProcessEnv = process.env): void {
  if (held.watching || held.started) return;
  held.watching = setInterval(() => {
    const state = valkey9Build(env).state;
    if (state === 'building') return;
    clearInterval(held.watching);
    held.watching = undefined;
    if (state === 'ready') atomicRuntime(env).catch(() => {});
  }, 3000);
  held.watching.unref();
}

/** Starts the Valkey 9 cluster in the background when it is (or once it will be) built. */
export function warmAtomicRuntime(env: NodeJS.ProcessEnv = process.env): void {
  try {
    void atomicRuntime(env).catch(() => {});
  } catch {
    // Being built (watched) or absent (said on the page): nothing to wait for here.
  }
}

/**
 * After a process that ran on this site's Valkey 9 cluster died (a worker of WORKERS=n), in the primary
 * that started the cluster: what its run left in flight is cancelled and its keys removed, in a turn of
 * its own in the atomic runs' line, however long that line is; refused or failed (a node restarting),
 * it is tried again until done, or until the cluster is stopped. Each thing done, and each try that
 * failed, is a line for `say` (the log). Nothing to do while the cluster is not up.
 */
export async function clearAfterDeadProcess(say: (line: string) => void): Promise<void> {
  const started = held.started;
  const runtime = await started?.catch(() => null);
  if (!runtime) return;
  for (let tries = 1; held.started === started; tries += 1) {
    try {
      const lines = await clearLeftovers(runtime, ATOMIC_RUN_LOCK, CLEANUP_TURN_WAIT_MS);
      lines.forEach(say);
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
  if (held.watching) clearInterval(held.watching);
  held.watching = undefined;
  const started = held.started;
  held.started = undefined;
  held.failure = undefined;
  if (started) await (await started.catch(() => null))?.close();
}
