// What every experiment runs against: the sandbox's standalone node (native module loaded) reached as
// the restricted explorer user through a pool of per-run keyspaces, and its three-node cluster, reached
// as the same user through a cluster client (and node by node, to show what a node that does not own a
// slot answers). Started once, lazily, by the sandbox bootstrap (`startSandbox`) that tests and
// benchmarks use too.

import { createHmac } from 'node:crypto';
import { Cluster, Valkey, type RedisOptions } from 'iovalkey';
import { clusterClient } from '../sandbox/cluster.ts';
import { readShards, splitAddress } from '../sandbox/cluster-topology.ts';
import {
  EXPLORER_USER,
  explorerUserArgs,
  installExplorerUser,
  newPassword,
} from '../sandbox/explorer-user.ts';
import { loadScripts, loadScriptsThrough } from '../executors/scripted.ts';
import { KeyspacePool } from '../sandbox/keyspace-pool.ts';
import { RunLocks } from '../sandbox/run-lock.ts';
import { watchCluster } from '../sandbox/cluster-watch.ts';
import type { ClusterAdmin } from '../sandbox/slot-migration.ts';
import { startSandbox } from '../sandbox/sandbox.ts';
import { nativeModulePath, type AdminCredentials } from '../sandbox/valkey-process.ts';

export const POOL_SIZE = 24;
/** A run is ended (its commands cancelled, its keyspace flushed and given back) after this long. */
export const RUN_DEADLINE_MS = Number(process.env.RUN_DEADLINE_MS || 15_000);
/** How long past the deadline a lease may outlive a run whose process died (it then expires). */
export const LEASE_GRACE_MS = Number(process.env.LEASE_GRACE_MS || 5_000);

/**
 * The explorer's password, derived from the admin's URL: every site process on one VALKEY_URL (on one
 * host or several) sets the same account up, so none locks the others out by resetting it.
 */
function explorerPassword(adminUrl: string): string {
  // (When this process starts its own sandbox, no other shares it, and the password is random.)
  return createHmac('sha256', adminUrl).update('explorer').digest('base64url');
}

export interface ExplorerRuntime {
  pool: KeyspacePool;
  /** The cluster, as the explorer user, through a cluster client that follows MOVED and ASK. */
  cluster: Cluster;
  /** One node of the cluster (`host:port`), as the explorer user: it answers MOVED for others' slots. */
  clusterNode(address: string): Valkey;
  /**
   * The cluster as the admin — topology, proofs, clean-up, slot migration — never for a reader's
   * command; `clusterAdminNode` is one node of it.
   */
  clusterAdmin: Cluster;
  clusterAdminNode(address: string): Valkey;
  /** The admin's credentials on the cluster's nodes (MIGRATE passes them to the target), if any. */
  clusterAdminCredentials(): AdminCredentials | null;
  /** Runs on one slot of the shared cluster take turns (within and across processes). */
  locks: RunLocks;
  /** What slot migrations and cluster repairs use: one node at a time as the admin, in one turn. */
  migrations: ClusterAdmin;
  /** Whether the standalone node has the native module loaded. */
  native(): boolean;
  /** What is wrong with the cluster's slot map now (empty: every run would be served). */
  clusterProblems(): Promise<string[]>;
  /** Whether the standalone node and every cluster node answer a PING within a second. */
  health(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * One runtime per process, kept on the process itself: the JSON API loads this file from server/, and
 * Astro's bundle of the server islands carries a copy of it; both must lease from one pool.
 */
const RUNTIME = Symbol.for('the-owned-keyspace:explorer-runtime');
const shared = globalThis as { [RUNTIME]?: Promise<ExplorerRuntime> };

export function explorerRuntime(): Promise<ExplorerRuntime> {
  shared[RUNTIME] ??= start().catch((error) => {
    shared[RUNTIME] = undefined; // the next request tries again
    throw error;
  });
  return shared[RUNTIME];
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
      // The account, then the project's scripts (the account may not load them itself).
      void installExplorerUser(admin, password)
        .then(async (native) => {
          await loadScripts(admin);
          onInstall(native);
          resolve();
        })
        .catch(() => {});
    });
  });
  return { admin, installed };
}

/** Plain connections to single nodes, one per address, opened when first asked for. */
function nodeConnections(options: RedisOptions) {
  const open = new Map<string, Valkey>();
  return {
    get(address: string): Valkey {
      let client = open.get(address);
      if (!client) {
        client = new Valkey({
          ...splitAddress(address),
          ...options,
          maxRetriesPerRequest: 1,
          retryStrategy: (times) => Math.min(times * 100, 1000),
        });
        client.on('error', () => {});
        open.set(address, client);
      }
      return client;
    },
    all: () => [...open.values()],
  };
}

async function start(): Promise<ExplorerRuntime> {
  const password = process.env.VALKEY_URL ? explorerPassword(process.env.VALKEY_URL) : newPassword();
  // The same bootstrap as the tests and benchmarks: VALKEY_URL or a supervised node of our own. The
  // cluster nodes it starts have the explorer's account from their first connection, restarts included.
  const sandbox = await startSandbox({
    databases: POOL_SIZE + 1,
    clusterOptions: { args: explorerUserArgs(password, nativeModulePath() !== null, true) },
  });
  const standaloneUrl = sandbox.standalone.url;
  const clusterPart = sandbox.cluster!;
  const adminOptions: RedisOptions = clusterPart.admin ?? {};
  // No ready check: it sends INFO, which the explorer may not run.
  const asExplorer = { username: EXPLORER_USER, password, enableReadyCheck: false };

  const clusterAdmin = clusterClient(clusterPart.seeds, { redisOptions: adminOptions });
  // What a run asks several nodes at once (where a key is, how many keys a slot holds) goes out in one
  // write per node.
  const adminNodes = nodeConnections({ ...adminOptions, enableAutoPipelining: true });
  let nativeLoaded = false;
  const standalone = adminFor(standaloneUrl, password, (native) => (nativeLoaded = native));
  // Every node of the cluster gets the account (and again after a restart), read from CLUSTER SHARDS, so
  // a cluster VALKEY_CLUSTER_URL names by one seed has it on all its nodes.
  const shards = await readShards(clusterAdmin);
  const nodeInstalls = shards.map(({ address }) => {
    const { host, port } = splitAddress(address);
    const url = new URL(`redis://${host}:${port}`);
    if (clusterPart.admin) {
      url.username = encodeURIComponent(clusterPart.admin.username);
      url.password = encodeURIComponent(clusterPart.admin.password);
    }
    return adminFor(url.toString(), password, () => {});
  });
  await Promise.all([standalone.installed, ...nodeInstalls.map((node) => node.installed)]);
  const standaloneAdmin = standalone.admin;

  const pool = new KeyspacePool(standaloneUrl, POOL_SIZE, {
    explorer: asExplorer,
    deadlineMs: RUN_DEADLINE_MS,
    graceMs: LEASE_GRACE_MS,
  });
  const cluster = clusterClient(clusterPart.seeds, { redisOptions: asExplorer });
  loadScriptsThrough(cluster, clusterAdmin);
  const explorerNodes = nodeConnections(asExplorer);
  const explorerNode = (address: string) => {
    const client = explorerNodes.get(address);
    loadScriptsThrough(client, adminNodes.get(address));
    return client;
  };
  await Promise.all([cluster, clusterAdmin].map((client) => client.ping()));
  const locks = new RunLocks(clusterAdmin);
  const migrations: ClusterAdmin = {
    dial: adminNodes.get,
    seeds: clusterPart.seeds.map(({ host, port }) => `${host}:${port}`),
    credentials: clusterPart.admin,
    locks,
    log: (line) => console.log(`cluster: ${line}`),
  };
  // At start: a slot a killed site left half-moved is finished or undone before the first run.
  const watch = await watchCluster(migrations);

  return {
    pool,
    cluster,
    clusterNode: explorerNode,
    clusterAdmin,
    clusterAdminNode: adminNodes.get,
    clusterAdminCredentials: () => clusterPart.admin,
    locks,
    migrations,
    native: () => nativeLoaded,
    clusterProblems: () => watch.problems(),
    health: async () => {
      const ping = (client: Valkey) =>
        client.status === 'ready' &&
        Promise.race([
          client.ping().then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 1000)),
        ]);
      const admins = [standaloneAdmin, ...nodeInstalls.map((node) => node.admin)];
      const answers = await Promise.all(admins.map(ping)).catch(() => [false]);
      return answers.every(Boolean);
    },
    close: async () => {
      watch.stop();
      await pool.close();
      cluster.disconnect();
      clusterAdmin.disconnect();
      standaloneAdmin.disconnect();
      for (const client of [...explorerNodes.all(), ...adminNodes.all()]) client.disconnect();
      for (const node of nodeInstalls) node.admin.disconnect();
      await sandbox.stop();
      shared[RUNTIME] = undefined;
    },
  };
}
