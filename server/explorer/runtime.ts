// What every experiment runs against: the sandbox's standalone node, through a pool of per-run
// keyspaces, and its cluster's handle. Started once, lazily, on the bootstrap tests use too; no run is
// handed it whole, each is given what its row names (grants.ts).

import nodeCluster from 'node:cluster';
import { createHmac } from 'node:crypto';
import { Valkey } from 'iovalkey';
import { connectCluster, preparedNode, serverUp } from '../cluster/handle.ts';
import { fromPrimary, type Shared } from '../cluster/share.ts';
import { EXPLORER_USER, explorerUserArgs, installExplorerUser, newPassword } from './explorer-user.ts';
import { KeyspacePool } from './keyspace-pool.ts';
import { outsideRun, settledWithin } from '../run-deadline.ts';
import { watchCluster } from './cluster-watch.ts';
import type { ClusterAdmin } from './slot-migration.ts';
import { startSandbox, type Sandbox, type SandboxOptions } from '../sandbox/sandbox.ts';
import { describeOffer, readKeyspaceOffer, StartRefusedError } from '../sandbox/standalone-offer.ts';
import { nativeModulePath } from '../sandbox/valkey-process.ts';
import { ADMIN_CONNECT_MS, MAX_KEYSPACES, reconnectAfter, START_BUDGET_MS } from '../settings/bounds.ts';
import { runSettings } from '../settings/environment.ts';

export type ExplorerRuntime = Awaited<ReturnType<typeof startOn>>;

// One runtime per process: the API and the island import this one file (astro.config.mjs keeps Astro
// from bundling a copy). A failed start is forgotten; the next request tries again.
let running: Promise<ExplorerRuntime> | undefined;

export function explorerRuntime(): Promise<ExplorerRuntime> {
  running ??= outsideRun(start).catch((error) => {
    running = undefined;
    throw error;
  });
  return running;
}

/** Derived from VALKEY_URL on existing servers, so site processes sharing them do not lock each other out. */
export function explorerPasswordFor(env: NodeJS.ProcessEnv): string {
  if (!env.VALKEY_URL) return newPassword();
  return createHmac('sha256', env.VALKEY_URL).update('explorer').digest('base64url');
}

/** Every node has the explorer's account on its command line: a restarted node has it at once. */
export function siteSandboxOptions(password: string): SandboxOptions {
  const native = nativeModulePath() !== null;
  return {
    databases: MAX_KEYSPACES + 1,
    standaloneArgs: explorerUserArgs(password, native),
    clusterOptions: { args: explorerUserArgs(password, native, true) },
  };
}

/** What a site's explorer runs on: the standalone node (as its admin) and the shared cluster. */
export type SandboxAccess = ReturnType<typeof sandboxAccess>;

/** The name the primary of WORKERS=n shares its sandbox under (cluster/share.ts). */
const SHARED = 'sandbox';

/** Where `sandbox` answers and how to sign in, the explorer's account with `password`. */
export function sandboxAccess(sandbox: Sandbox, password: string) {
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
  // A worker runs on its primary's sandbox, up before any worker: a killed worker leaves nothing running.
  if (nodeCluster.isWorker) return startOn((await fromPrimary<SandboxAccess>(SHARED, 10_000))!);
  const password = explorerPasswordFor(process.env);
  // The same bootstrap as the tests and benchmarks: VALKEY_URL or supervised nodes of our own.
  const sandbox = await startSandbox(siteSandboxOptions(password));
  return startOn(sandboxAccess(sandbox, password), sandbox.stop);
}

/**
 * Sets the explorer up on a sandbox and warms what a first run uses; what cannot be used fails the start
 * within START_BUDGET_MS, naming the server. `stop` stops the sandbox on close or failure.
 */
export async function startOn(access: SandboxAccess, stop: () => Promise<void> = async () => {}) {
  const deadline = Date.now() + START_BUDGET_MS;
  const within = <T>(step: Promise<T>, what: () => string) =>
    settledWithin(Math.max(0, deadline - Date.now()), () => new StartRefusedError(what()), step);
  const { standaloneUrl, cluster: clusterAccess } = access;
  const prepare = (admin: Valkey) => installExplorerUser(admin, clusterAccess.explorer.password);
  const { hostname, port } = new URL(standaloneUrl);
  const standaloneAt = `${hostname}:${port || 6379}`; // never its credentials (for the log)
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
    // A run's deadline, and how long past it a lease may outlive a run whose process died.
    const pool = new KeyspacePool(standaloneUrl, offer.keyspaces, {
      explorer: clusterAccess.explorer,
      ...runSettings(),
    });
    opened.push({ disconnect: () => void pool.close() });
    // Warm, so the first run of each experiment opens nothing.
    await within(
      pool.warm(),
      () => `the standalone Valkey at ${standaloneAt} did not load the lease scripts`,
    );
    const handle = await connectCluster(clusterAccess, { prepare, within });
    opened.push(handle);

    const migrations: ClusterAdmin = {
      dial: handle.clusterAdminNode,
      seeds: handle.seeds,
      credentials: clusterAccess.admin,
      locks: handle.locks,
      log: (line) => console.log(`cluster: ${line}`),
    };
    // At start: a slot a killed site left half-moved is finished or undone before the first run. Not
    // within the start's budget: a repair moves keys and waits for every node to agree, with its own
    // deadlines (cluster-watch.ts), and a cluster being put right is not one that cannot be used.
    const watch = await watchCluster(migrations);
    opened.push({ disconnect: () => watch.stop() });
    const servers = async () => {
      const [alone, nodes] = await Promise.all([serverUp(standalone), handle.servers()]);
      return [
        { ...alone, role: 'standalone' as const },
        ...nodes.map((node) => ({ ...node, role: 'cluster' as const })),
      ];
    };
    return {
      ...handle,
      pool,
      /** What slot migrations and cluster repairs use: one node at a time as the admin, in one turn. */
      migrations,
      /** Whether the standalone node has the native module loaded. */
      native: () => nativeLoaded,
      /** What is wrong with the cluster's slot map now (empty: every run would be served). */
      clusterProblems: () => watch.problems(),
      servers,
      // Up only while a run would be served: every admin connection prepared since its last reconnect.
      health: async () =>
        pool.ready() &&
        standalone.ready() &&
        handle.ready() &&
        (await servers()).every((server) => server.up),
      close: async () => {
        await pool.close();
        for (const client of opened) client.disconnect();
        await stop();
        running = undefined;
      },
    };
  } catch (error) {
    for (const client of opened) client.disconnect();
    await stop();
    throw error;
  }
}
