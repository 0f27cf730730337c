// What every experiment runs against: the sandbox's standalone node (native module loaded) reached as
// the restricted explorer user through a pool of per-run keyspaces, and its cluster node. Started once,
// lazily, by the sandbox bootstrap (`startSandbox`) that tests and benchmarks use too.

import { Valkey } from 'iovalkey';
import { EXPLORER_USER, installExplorerUser, newPassword } from '../sandbox/explorer-user.ts';
import { KeyspacePool } from '../sandbox/keyspace-pool.ts';
import { startSandbox } from '../sandbox/sandbox.ts';

export const POOL_SIZE = 24;

export interface ExplorerRuntime {
  pool: KeyspacePool;
  /** The cluster node, as the explorer user. */
  cluster: Valkey;
  /** Whether the standalone node has the native module loaded. */
  native(): boolean;
  /** Whether both nodes answer a PING within a second. */
  health(): Promise<boolean>;
  close(): Promise<void>;
}

let started: Promise<ExplorerRuntime> | undefined;

export function explorerRuntime(): Promise<ExplorerRuntime> {
  started ??= start().catch((error) => {
    started = undefined; // the next request tries again
    throw error;
  });
  return started;
}

/**
 * An admin connection that (re)installs the explorer user on every (re)connect, e.g. after a restart,
 * and reports whether the server has the native module; `installed` settles on the first install.
 */
function adminFor(url: string, password: string, onInstall: (native: boolean) => void) {
  const admin = new Valkey(url, {
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  admin.on('error', () => {});
  const installed = new Promise<void>((resolve) => {
    admin.on('ready', () => {
      void installExplorerUser(admin, password)
        .then((native) => {
          onInstall(native);
          resolve();
        })
        .catch(() => {});
    });
  });
  return { admin, installed };
}

async function start(): Promise<ExplorerRuntime> {
  // The same bootstrap as the tests and benchmarks: VALKEY_URL or a supervised node of our own.
  const sandbox = await startSandbox({ databases: POOL_SIZE + 1 });
  const standaloneUrl = sandbox.standalone.url;
  const clusterUrl = sandbox.cluster!.url;

  const password = newPassword();
  let nativeLoaded = false;
  const standalone = adminFor(standaloneUrl, password, (native) => (nativeLoaded = native));
  const clusterNode = adminFor(clusterUrl, password, () => {});
  await Promise.all([standalone.installed, clusterNode.installed]);
  const [standaloneAdmin, clusterAdmin] = [standalone.admin, clusterNode.admin];

  const asExplorer = { username: EXPLORER_USER, password };
  const pool = new KeyspacePool(standaloneUrl, POOL_SIZE, asExplorer);
  const cluster = new Valkey(clusterUrl, {
    ...asExplorer,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  cluster.on('error', () => {});
  // Offline commands fail at once by design, so the first run must not race the first connection.
  await new Promise((resolve) => cluster.once('ready', resolve));

  return {
    pool,
    cluster,
    native: () => nativeLoaded,
    health: async () => {
      const ping = (client: Valkey) =>
        client.status === 'ready' &&
        Promise.race([
          client.ping().then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 1000)),
        ]);
      const answers = await Promise.all([ping(standaloneAdmin), ping(clusterAdmin)]).catch(() => [false]);
      return answers.every(Boolean);
    },
    close: async () => {
      await pool.close();
      cluster.disconnect();
      standaloneAdmin.disconnect();
      clusterAdmin.disconnect();
      await sandbox.stop();
      started = undefined;
    },
  };
}
