// What every experiment runs against: the sandbox's standalone node (native module loaded) reached as
// the restricted explorer user through a pool of per-run keyspaces, and its three-node cluster, reached
// through the one cluster handle (cluster/handle.ts, as the Valkey 9.1 cluster is: atomic-runtime.ts).
// Started once, lazily, by the sandbox bootstrap (`startSandbox`) that tests and benchmarks use too; a
// worker of WORKERS=n asks its primary where the sandbox is (cluster/share.ts). No run is handed it
// whole: each is given what its registry row names (grants.ts).

import nodeCluster from 'node:cluster';
import { createHmac } from 'node:crypto';
import { Valkey } from 'iovalkey';
import { connectCluster, type ClusterAccess, type ClusterHandle } from '../cluster/handle.ts';
import { fromPrimary, type Shared } from '../cluster/share.ts';
import { preparedNode } from '../cluster/prepared-node.ts';
import { EXPLORER_USER, explorerUserArgs, installExplorerUser, newPassword } from './explorer-user.ts';
import { KeyspacePool } from './keyspace-pool.ts';
import { outsideRun, settledWithin } from '../run-deadline.ts';
import { answersPing } from '../cluster/answers-ping.ts';
import { watchCluster } from './cluster-watch.ts';
import type { ClusterAdmin } from './slot-migration.ts';
import { startSandbox, type Sandbox, type SandboxOptions } from '../sandbox/sandbox.ts';
import { describeOffer, readKeyspaceOffer, StartRefusedError } from '../sandbox/standalone-offer.ts';
import { nativeModulePath } from '../sandbox/valkey-process.ts';
import { ADMIN_CONNECT_MS, MAX_KEYSPACES, reconnectAfter, START_BUDGET_MS } from '../settings/bounds.ts';
import { runSettings } from '../settings/environment.ts';

/** A run's deadline, and how long past it a lease may outlive a run whose process died. */
const RUN = runSettings();

/** The shared cluster's handle (cluster/handle.ts), with the standalone node's pool beside it. */
export interface ExplorerRuntime extends ClusterHandle {
  pool: KeyspacePool;
  /** What slot migrations and cluster repairs use: one node at a time as the admin, in one turn. */
  migrations: ClusterAdmin;
  /** Whether the standalone node has the native module loaded. */
  native(): boolean;
  /** What is wrong with the cluster's slot map now (empty: every run would be served). */
  clusterProblems(): Promise<string[]>;
  /** Whether the standalone node and every cluster node answer a PING within a second. */
  health(): Promise<boolean>;
  /** Each server and whether it answers a PING within a second (the metrics' `emq_server_up`). */
  servers(): Promise<Array<{ server: string; role: 'standalone' | 'cluster'; up: boolean }>>;
  close(): Promise<void>;
}

/**
 * One runtime per process, in this module: the JSON API and the server island both import this file
 * from server/ (Astro's server build imports server/ instead of bundling a copy: astro.config.mjs), so
 * both lease from one pool. A failed start is forgotten, and the next request tries again.
 */
let running: Promise<ExplorerRuntime> | undefined;

export function explorerRuntime(): Promise<ExplorerRuntime> {
  running ??= outsideRun(start).catch((error) => {
    running = undefined;
    throw error;
  });
  return running;
}

/** `host:port` of a URL, never its credentials (for the log). */
function addressOf(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || 6379}`;
}

/**
 * The explorer's password: derived from VALKEY_URL when the site runs on existing servers, so every site
 * process on them (on one host or several) sets the same account up and none locks the others out by
 * resetting it; else random (no other process shares the sandbox this one starts; its workers are
 * handed the password with the sandbox, cluster/share.ts).
 */
export function explorerPasswordFor(env: NodeJS.ProcessEnv): string {
  if (!env.VALKEY_URL) return newPassword();
  return createHmac('sha256', env.VALKEY_URL).update('explorer').digest('base64url');
}

/**
 * The sandbox a site starts for itself (WORKERS=1, or the primary for its workers): every node it starts,
 * the standalone included, has the explorer's account on its command line, so a node its supervisor
 * restarts has the account from its first connection, before any admin could install it again.
 */
export function siteSandboxOptions(password: string): SandboxOptions {
  const native = nativeModulePath() !== null;
  return {
    databases: MAX_KEYSPACES + 1,
    standaloneArgs: explorerUserArgs(password, native),
    clusterOptions: { args: explorerUserArgs(password, native, true) },
  };
}

/** What a site's explorer runs on: the standalone node (as its admin) and the shared cluster. */
export interface SandboxAccess {
  standaloneUrl: string;
  cluster: ClusterAccess;
}

/** The name the primary of WORKERS=n shares its sandbox under (cluster/share.ts). */
const SHARED = 'sandbox';
/** How long a worker waits for its primary's answer (the sandbox is up before any worker starts). */
const PRIMARY_ANSWER_MS = 10_000;

/** Where `sandbox` answers and how to sign in, the explorer's account with `password`. */
export function sandboxAccess(sandbox: Sandbox, password: string): SandboxAccess {
  const { seeds, admin } = sandbox.cluster!;
  return {
    standaloneUrl: sandbox.standalone.url,
    cluster: { seeds, admin, explorer: { username: EXPLORER_USER, password } },
  };
}

/** In the primary of WORKERS=n: the sandbox it started, handed to each worker that asks. */
export function sharedSandbox(access: SandboxAccess): Record<string, Shared<SandboxAccess>> {
  return { [SHARED]: { get: async () => access, ifUp: async () => access } };
}

async function start(): Promise<ExplorerRuntime> {
  // A worker runs on its primary's sandbox (cluster/share.ts): a killed worker leaves nothing running.
  if (nodeCluster.isWorker) return startOn((await fromPrimary<SandboxAccess>(SHARED, PRIMARY_ANSWER_MS))!);
  const password = explorerPasswordFor(process.env);
  // The same bootstrap as the tests and benchmarks: VALKEY_URL or supervised nodes of our own.
  const sandbox = await startSandbox(siteSandboxOptions(password));
  try {
    return await startOn(sandboxAccess(sandbox, password), sandbox.stop);
  } catch (error) {
    await sandbox.stop();
    throw error;
  }
}

/**
 * Sets the explorer up on a sandbox and warms everything a first run uses (connections, scripts, the
 * cluster's slot map), each step bounded: what cannot be used fails the start with one line saying
 * which server and what was wrong, within START_BUDGET_MS. `stop` stops the sandbox on close, when
 * this process started it.
 */
export async function startOn(
  access: SandboxAccess,
  stop: () => Promise<void> = async () => {},
): Promise<ExplorerRuntime> {
  const deadline = Date.now() + START_BUDGET_MS;
  const within = <T>(step: Promise<T>, what: () => string) =>
    settledWithin(Math.max(0, deadline - Date.now()), () => new StartRefusedError(what()), step);
  const { standaloneUrl, cluster: clusterAccess } = access;
  const prepare = (admin: Valkey) => installExplorerUser(admin, clusterAccess.explorer.password);
  const standaloneAt = addressOf(standaloneUrl);
  const opened: Array<{ disconnect(): void }> = [];
  try {
    const standaloneAdmin = new Valkey(standaloneUrl, {
      maxRetriesPerRequest: 0,
      connectTimeout: ADMIN_CONNECT_MS,
      retryStrategy: reconnectAfter,
    });
    opened.push(standaloneAdmin);
    const standalone = preparedNode(standaloneAdmin, standaloneAt, prepare);
    const nativeLoaded = await within(
      standalone.prepared,
      () => `the standalone Valkey at ${standaloneAt} cannot be used: ${standalone.lastError()}`,
    );
    const offer = await within(
      readKeyspaceOffer(standaloneAdmin, standaloneAt),
      () => `the standalone Valkey at ${standaloneAt} did not say how many databases it has`,
    );
    // Said once per site: by the primary of WORKERS=n (which checks the sandbox), not by each worker.
    const say = nodeCluster.isPrimary ? console.log : () => {};
    say(describeOffer(offer, standaloneAt));
    say(
      `native module: ${nativeLoaded ? 'trafikey is loaded on the standalone node' : `trafikey is not loaded on ${standaloneAt}; the native executor's runs are not available`}`,
    );
    const pool = new KeyspacePool(standaloneUrl, offer.keyspaces, {
      explorer: clusterAccess.explorer,
      deadlineMs: RUN.deadlineMs,
      graceMs: RUN.graceMs,
    });
    opened.push({ disconnect: () => void pool.close() });
    // Warm: the pool's connections and lease scripts, and the cluster (cluster/handle.ts), so the first
    // run of each experiment opens nothing.
    await within(
      pool.warm(),
      () => `the standalone Valkey at ${standaloneAt} did not load the lease scripts`,
    );
    const handle = await connectCluster(clusterAccess, { prepare, within });
    opened.push(handle);

    const migrations: ClusterAdmin = {
      dial: handle.clusterAdminNode,
      seeds: clusterAccess.seeds.map(({ host, port }) => `${host}:${port}`),
      credentials: clusterAccess.admin,
      locks: handle.locks,
      log: (line) => console.log(`cluster: ${line}`),
    };
    // At start: a slot a killed site left half-moved is finished or undone before the first run. Not
    // within the start's budget: a repair moves keys and waits for every node to agree, with its own
    // deadlines (cluster-watch.ts), and a cluster being put right is not one that cannot be used.
    const watch = await watchCluster(migrations);
    opened.push({ disconnect: () => watch.stop() });
    const standaloneUp = async () =>
      standaloneAdmin.status === 'ready' && (await answersPing(standaloneAdmin));
    return {
      ...handle,
      pool,
      migrations,
      native: () => nativeLoaded,
      clusterProblems: () => watch.problems(),
      servers: async () => [
        { server: standaloneAt, role: 'standalone', up: await standaloneUp() },
        ...(await handle.servers()).map((node) => ({ ...node, role: 'cluster' as const })),
      ],
      health: async () => {
        // Up only while a run would be served: every admin connection has put the account and the
        // scripts back since its last reconnect, and the pool and the cluster client are connected.
        if (!pool.ready() || !standalone.ready() || !handle.ready()) return false;
        const [up, nodes] = await Promise.all([standaloneUp(), handle.servers()]);
        return up && nodes.every((node) => node.up);
      },
      close: async () => {
        await pool.close();
        for (const client of opened) client.disconnect();
        await stop();
        running = undefined;
      },
    };
  } catch (error) {
    for (const client of opened) client.disconnect();
    throw error;
  }
}
