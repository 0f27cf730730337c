// One cluster, reached one way whatever its Valkey version: the shared Valkey 8 cluster of every run
// (runtime.ts) and the Valkey 9.1 cluster of the atomic reshard (atomic-runtime.ts) are each one
// handle, built by `connectCluster` from where the cluster answers and how to sign in. A reader's
// commands go out as the explorer user (a cluster client that follows MOVED and ASK, and a node by
// address, which answers MOVED for others' slots); topology, proofs, clean-up and migrations as the
// admin. The explorer's connections load the project's scripts through the admin's (it may not).

import type { Cluster, Valkey } from 'iovalkey';
import { loadScriptsThrough } from '../executors/scripted.ts';
import { clusterClient, type NodeAddress } from '../sandbox/cluster.ts';
import { reachCluster } from '../sandbox/cluster-reach.ts';
import type { AdminCredentials } from '../sandbox/valkey-process.ts';
import { answersPing } from './answers-ping.ts';
import { nodeConnections } from './node-connections.ts';
import { preparedNode, type Prepare } from './prepared-node.ts';
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
  /** Each node (replicas included) and whether it answers a PING within HEALTH_PING_MS. */
  servers(): Promise<Array<{ server: string; up: boolean }>>;
  /**
   * Whether a run would be served: every node has the account and the scripts back since its last
   * reconnect, and the explorer's cluster client is connected.
   */
  ready(): boolean;
  disconnect(): void;
}

export interface ConnectOptions {
  /** Installs the explorer's account on a node (and again after it restarts). */
  prepare: Prepare;
  /** Bounds each step of the start (the caller's deadline), failing it with `what` went wrong. */
  within?: <T>(step: Promise<T>, what: () => string) => Promise<T>;
}

/** The Valkey version a node reports (INFO server). */
export async function serverVersion(node: Valkey): Promise<string> {
  const info = String(await node.call('INFO', 'server'));
  return (
    /valkey_version:([^\r\n]+)/.exec(info)?.[1] ?? /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? 'unknown'
  );
}

/**
 * The handle of the cluster `access` names, warm: every node (read from CLUSTER SHARDS, so a cluster
 * named by one seed has them all, replicas included) has the explorer's account and the scripts, and
 * keeps them through its restarts; both cluster clients hold the slot map, and every primary has a
 * connection as each user, so a first run opens nothing. A handle that fails is disconnected.
 */
export async function connectCluster(
  access: ClusterAccess,
  { prepare, within = (step) => step }: ConnectOptions,
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
  const seeds = access.seeds.map(({ host, port }) => `${host}:${port}`).join(', ');
  try {
    const members = await within(
      reachCluster(access.seeds, access.admin),
      () => `the cluster at ${seeds} did not answer CLUSTER SHARDS`,
    );
    const nodes = members.map(({ address }) => preparedNode(adminNodes.get(address), address, prepare));
    await Promise.all(
      nodes.map((node) =>
        within(node.prepared, () => `cluster node ${node.address} cannot be used: ${node.lastError()}`),
      ),
    );
    const primaries = members.filter(({ role }) => role === 'primary').map(({ address }) => address);
    await within(
      Promise.all([
        cluster.ping(),
        clusterAdmin.ping(),
        ...primaries.flatMap((address) => [clusterNode(address).ping(), adminNodes.get(address).ping()]),
      ]),
      () =>
        `the cluster client could not reach every primary (${primaries.join(', ')}) as the explorer; is CLUSTER SLOTS giving addresses this host can reach?`,
    );
    return {
      access,
      version: await serverVersion(adminNodes.get(primaries[0]!)),
      cluster,
      clusterNode,
      clusterAdmin,
      clusterAdminNode: adminNodes.get,
      locks: new RunLocks(clusterAdmin),
      servers: () =>
        Promise.all(
          nodes.map(async ({ admin, address }) => ({
            server: address,
            up: admin.status === 'ready' && (await answersPing(admin)),
          })),
        ),
      ready: () => cluster.status === 'ready' && nodes.every((node) => node.ready()),
      disconnect,
    };
  } catch (error) {
    disconnect();
    throw error;
  }
}
