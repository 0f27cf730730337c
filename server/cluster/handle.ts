// One cluster, reached one way whatever its Valkey version: the shared Valkey 8 cluster of every run
// (runtime.ts) and the Valkey 9.1 cluster of the atomic reshard (atomic-runtime.ts) are each one
// handle, built by `connectCluster` from where the cluster answers and how to sign in. A reader's
// commands go out as the explorer user (a cluster client that follows MOVED and ASK, and a node by
// address, which answers MOVED for others' slots); topology, proofs, clean-up and migrations as the
// admin. The explorer's connections load the project's scripts through the admin's (it may not).

import type { Cluster, Valkey } from 'iovalkey';
import { loadScripts, loadScriptsThrough } from '../executors/scripted.ts';
import { clusterClient, type NodeAddress } from '../sandbox/cluster.ts';
import type { AdminCredentials } from '../sandbox/valkey-process.ts';
import { nodeConnections } from './node-connections.ts';
import { RunLocks } from './run-lock.ts';

/** Where a cluster answers and how to sign in: what the primary of WORKERS=n hands each worker. */
export interface ClusterAccess {
  seeds: NodeAddress[];
  /** The admin's credentials on every node, when the nodes have them. */
  admin: AdminCredentials | null;
  /** The restricted account a reader's commands run as. */
  explorer: { username: string; password: string };
}

export interface ClusterHandle {
  access: ClusterAccess;
  /** The server version the nodes report (INFO server), e.g. 8.0.2 or 9.1.2. */
  version: string;
  /** The cluster as the explorer user (a reader's commands). */
  cluster: Cluster;
  /** One node (`host:port`) as the explorer user: it answers MOVED for slots it does not own. */
  clusterNode(address: string): Valkey;
  /** The cluster as the admin: layout, migrations, proofs and clean-up, never a reader's command. */
  clusterAdmin: Cluster;
  clusterAdminNode(address: string): Valkey;
  /** Runs on this cluster take turns (within and across processes): run-lock.ts, turn-line.ts. */
  locks: RunLocks;
  disconnect(): void;
}

/** The Valkey version a node reports (INFO server). */
export async function serverVersion(node: Valkey): Promise<string> {
  const info = String(await node.call('INFO', 'server'));
  return (
    /valkey_version:([^\r\n]+)/.exec(info)?.[1] ?? /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? 'unknown'
  );
}

/**
 * The handle of the cluster `access` names, warm: both cluster clients hold the slot map, the scripts
 * are loaded on every primary, and every primary has a connection as each user, so a first run opens
 * nothing. `within` bounds the warming (the caller's deadline); a handle that fails is disconnected.
 */
export async function connectCluster(
  access: ClusterAccess,
  within: <T>(warming: Promise<T>) => Promise<T> = (warming) => warming,
): Promise<ClusterHandle> {
  const adminOptions = access.admin ?? {};
  // No ready check: it sends INFO, which the explorer may not run.
  const asExplorer = { ...access.explorer, enableReadyCheck: false };
  const clusterAdmin = clusterClient(access.seeds, { redisOptions: adminOptions });
  // What a run asks several nodes at once (where a key is, how many keys a slot holds) goes out in one
  // write per node.
  const adminNodes = nodeConnections({ ...adminOptions, enableAutoPipelining: true });
  const explorerNodes = nodeConnections(asExplorer);
  const cluster = clusterClient(access.seeds, { redisOptions: asExplorer });
  loadScriptsThrough(cluster, clusterAdmin);
  const clusterNode = (address: string) => {
    const client = explorerNodes.get(address);
    loadScriptsThrough(client, adminNodes.get(address));
    return client;
  };
  const disconnect = () => {
    for (const client of [cluster, clusterAdmin, ...explorerNodes.all(), ...adminNodes.all()]) {
      client.disconnect();
    }
  };
  try {
    const version = await within(
      (async () => {
        // Connected first: a cluster client knows its nodes (where the scripts go) only once it is ready.
        await Promise.all([cluster.ping(), clusterAdmin.ping()]);
        await loadScripts(clusterAdmin);
        const primaries = clusterAdmin
          .nodes('master')
          .map(({ options }) => `${options.host}:${options.port}`);
        await Promise.all(
          primaries.flatMap((address) => [clusterNode(address).ping(), adminNodes.get(address).ping()]),
        );
        const { host, port } = access.seeds[0]!;
        return serverVersion(adminNodes.get(`${host}:${port}`));
      })(),
    );
    const locks = new RunLocks(clusterAdmin);
    return {
      access,
      version,
      cluster,
      clusterNode,
      clusterAdmin,
      clusterAdminNode: adminNodes.get,
      locks,
      disconnect,
    };
  } catch (error) {
    disconnect();
    throw error;
  }
}
