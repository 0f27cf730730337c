// The second cluster: three Valkey 9.1 nodes (scripts/valkey9.sh builds the binary), trafikey loaded
// and declaring atomic-slot-migration support, the explorer's account on every node. The atomic mode
// of the reshard experiment runs here. Nothing waits for it: the site serves the course while Valkey 9
// is still being built, and asking before the cluster is up answers "being built" or "not available".

import nodeCluster from 'node:cluster';
import { Valkey, type Cluster, type RedisOptions } from 'iovalkey';
import { atomicClusterIfUp, atomicClusterOfPrimary } from './atomic-shared.ts';
import { loadScripts, loadScriptsThrough } from '../executors/scripted.ts';
import { clusterClient, startCluster, type NodeAddress, type SandboxCluster } from '../sandbox/cluster.ts';
import { nodeConnections } from './node-connections.ts';
import { EXPLORER_USER, explorerUserArgs, newPassword } from './explorer-user.ts';
import { RunLocks } from './run-lock.ts';
import { clearAtomicLeftovers } from './atomic-leftovers.ts';
import { outsideRun, settledWithin } from '../run-deadline.ts';
import { ADMIN_USER } from '../sandbox/sandbox.ts';
import { valkey9Build, Valkey9UnavailableError } from '../sandbox/valkey9-build.ts';
import { nativeModulePath, type AdminCredentials } from '../sandbox/valkey-process.ts';
import { clusterStateProblems } from '../sandbox/cluster-check.ts';
import { answersPing } from './answers-ping.ts';
import {
  ATOMIC_RETRY_START_MS,
  ATOMIC_START_WAIT_MS,
  CLEANUP_RETRY_FIRST_MS,
  CLEANUP_RETRY_MOST_MS,
  CLEANUP_TURN_WAIT_MS,
  HEALTH_PING_MS,
  MAXMEMORY,
} from '../settings/bounds.ts';

export interface AtomicRuntime {
  /** The server version the nodes report (INFO server), e.g. 9.1.2. */
  version: string;
  /** Whether trafikey is loaded on every node. */
  native: boolean;
  /** Where the cluster answers and how to sign in (the primary of WORKERS=n hands it to its workers). */
  sandbox: AtomicCluster;
  /** The cluster as the explorer user (a reader's commands). */
  cluster: Cluster;
  /** One node as the explorer user: it answers MOVED for slots it does not own. */
  clusterNode(address: string): Valkey;
  /** The cluster as the admin: layout, MIGRATESLOTS, proofs and clean-up, never a reader's command. */
  clusterAdmin: Cluster;
  clusterAdminNode(address: string): Valkey;
  locks: RunLocks;
  close(): Promise<void>;
}

/**
 * Where a Valkey 9 cluster answers and how to sign in to it: what the primary of WORKERS=n hands each
 * worker, so a site has one such cluster whatever its number of processes.
 */
export interface AtomicCluster {
  seeds: NodeAddress[];
  admin: AdminCredentials;
  explorerPassword: string;
  native: boolean;
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

/** Starts this site's Valkey 9 cluster (in the primary of WORKERS=n, or in a site of one process). */
async function startOwnCluster(server: string): Promise<{ cluster: AtomicCluster; stop(): Promise<void> }> {
  const password = newPassword();
  const module = nativeModulePath();
  const admin = { username: ADMIN_USER, password: newPassword() };
  const sandbox: SandboxCluster = await startCluster({
    binary: server,
    module,
    admin,
    peerAuth: true,
    maxmemory: MAXMEMORY.atomicNode,
    args: explorerUserArgs(password, module !== null),
  });
  return {
    cluster: { seeds: sandbox.seeds, admin, explorerPassword: password, native: module !== null },
    stop: sandbox.stop,
  };
}

async function start(server: string, version: string): Promise<AtomicRuntime> {
  // A worker uses its primary's cluster (atomic-shared.ts): a killed worker leaves nothing running.
  if (nodeCluster.isWorker) return connect(await atomicClusterOfPrimary(), version, async () => {});
  const own = await startOwnCluster(server);
  return connect(own.cluster, version, own.stop);
}

/** The clients of a run on `sandbox`; `stop` stops the cluster itself when this process started it. */
async function connect(
  sandbox: AtomicCluster,
  version: string,
  stop: () => Promise<void>,
): Promise<AtomicRuntime> {
  const { admin } = sandbox;
  const adminOptions: RedisOptions = { username: admin.username, password: admin.password };
  const asExplorer = { username: EXPLORER_USER, password: sandbox.explorerPassword, enableReadyCheck: false };
  const clusterAdmin = clusterClient(sandbox.seeds, { redisOptions: adminOptions });
  const adminNodes = nodeConnections(adminOptions);
  const explorerNodes = nodeConnections(asExplorer);
  const cluster = clusterClient(sandbox.seeds, { redisOptions: asExplorer });
  const close = async () => {
    cluster.disconnect();
    clusterAdmin.disconnect();
    for (const client of [...explorerNodes.all(), ...adminNodes.all()]) client.disconnect();
    await stop();
  };
  try {
    // Connected first: a cluster client knows its nodes (where the scripts go) only once it is ready.
    await Promise.all([cluster.ping(), clusterAdmin.ping()]);
    await loadScripts(clusterAdmin);
    loadScriptsThrough(cluster, clusterAdmin);
    const info = String(await adminNodes.get(`127.0.0.1:${sandbox.seeds[0]!.port}`).call('INFO', 'server'));
    const reported = /valkey_version:(\S+)/.exec(info)?.[1] ?? version;
    return {
      version: reported,
      native: sandbox.native,
      sandbox,
      cluster,
      clusterNode: (address) => {
        const client = explorerNodes.get(address);
        loadScriptsThrough(client, adminNodes.get(address));
        return client;
      },
      clusterAdmin,
      clusterAdminNode: adminNodes.get,
      locks: new RunLocks(clusterAdmin),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
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
  held.started = outsideRun(() => start(build.server, build.version)).catch((error: Error) => {
    held.started = undefined;
    held.failure = `its cluster did not start (${error.message.split('\n', 1)[0]})`;
    held.failedAt = Date.now();
    throw new Valkey9UnavailableError('absent', held.failure);
  });
  return held.started;
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
  if (held.started) {
    const settled = await Promise.race([
      held.started,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 50)),
    ]).catch(() => undefined);
    if (settled) return nodesStatus(settled);
    if (settled === null) return { state: 'starting', message: 'the Valkey 9.1 cluster is starting' };
  }
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
  const build = valkey9Build(env);
  if (build.state !== 'ready') return;
  const running = await atomicClusterIfUp();
  if (held.started) return; // a run connected meanwhile
  if (!running) return void (notRunningAt = Date.now());
  const started = connect(running, build.version, async () => {}).catch((error: Error) => {
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

/** In the primary: its Valkey 9 cluster if it is up now, else null (nothing is started). */
export async function runningAtomicCluster(): Promise<AtomicCluster | null> {
  const started = held.started;
  if (!started) return null;
  const settled = await Promise.race([started, Promise.resolve(null)]).catch(() => null);
  return settled?.sandbox ?? null;
}

async function nodesStatus(runtime: AtomicRuntime): Promise<AtomicStatus> {
  const { version } = runtime;
  const seeds = runtime.sandbox.seeds.map(({ host, port }) => `${host}:${port}`);
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
  const runtime = held.started
    ? await Promise.race([
        held.started,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 50)),
      ]).catch(() => null)
    : null;
  if (!runtime) return [];
  return Promise.all(
    runtime.sandbox.seeds.map(async ({ host, port }) => {
      const server = `${host}:${port}`;
      return {
        server,
        role: 'atomic-cluster' as const,
        up: await answersPing(runtime.clusterAdminNode(server)),
      };
    }),
  );
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
      const lines = await clearAtomicLeftovers(runtime, ATOMIC_RUN_LOCK, CLEANUP_TURN_WAIT_MS);
      lines.forEach(say);
      return say(`clean-up done (try ${tries})`);
    } catch (error) {
      const pause = Math.min(CLEANUP_RETRY_FIRST_MS * 2 ** (tries - 1), CLEANUP_RETRY_MOST_MS);
      say(`clean-up try ${tries} failed (${(error as Error).message}); trying again in ${pause} ms`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** The primary's Valkey 9 cluster as its workers reach it, started if it is not yet (atomic-shared.ts). */
export async function atomicClusterForWorkers(env: NodeJS.ProcessEnv = process.env): Promise<AtomicCluster> {
  return (await atomicRuntime(env)).sandbox;
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
