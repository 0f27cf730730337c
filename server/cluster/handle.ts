// One cluster, reached one way whatever its Valkey version (the shared Valkey 8 cluster, runtime.ts; the
// atomic reshard's Valkey 9.1 one, atomic-runtime.ts): a reader's commands go out as the explorer, the
// layout, proofs, clean-up and migrations as the admin.

import { Valkey, type RedisOptions } from 'iovalkey';
import { loadScripts, loadScriptsThrough } from '../executors/scripted.ts';
import { clusterClient, type NodeAddress } from '../sandbox/cluster.ts';
import { clusterStateProblems } from '../sandbox/cluster-check.ts';
import { reachCluster } from '../sandbox/cluster-reach.ts';
import { splitAddress } from '../sandbox/cluster-topology.ts';
import { StartRefusedError } from '../sandbox/standalone-offer.ts';
import type { AdminCredentials } from '../sandbox/valkey-process.ts';
import { HEALTH_PING_MS, reconnectAfter } from '../settings/bounds.ts';
import { settledWithin } from '../run-deadline.ts';
import { RunLocks } from './run-lock.ts';

/** Where a cluster answers and how to sign in: what the primary of WORKERS=n hands each worker. */
export interface ClusterAccess {
  seeds: NodeAddress[];
  /** The admin's credentials on every node, when the nodes have them. */
  admin: AdminCredentials | null;
  /** The restricted account a reader's commands run as. */
  explorer: { username: string; password: string };
}

export type ClusterHandle = Awaited<ReturnType<typeof connectCluster>>;

/** Installs the explorer's account through an admin connection; answers whether trafikey is loaded. */
export type Prepare = (admin: Valkey) => Promise<boolean>;

/** The Valkey version a node reports (INFO server). */
export async function serverVersion(node: Valkey): Promise<string> {
  const info = String(await node.call('INFO', 'server'));
  return /valkey_version:([^\r\n]+)/.exec(info)?.[1] ?? 'unknown';
}

/** Whether `client` answers a PING within HEALTH_PING_MS (`emq_server_up`, the health). */
export function answersPing(client: Valkey): Promise<boolean> {
  return settledWithin(HEALTH_PING_MS, () => new Error('no PONG'), client.ping()).then(
    () => true,
    () => false,
  );
}

/** A server by its admin connection (`emq_server_up`): up while connected and answering a PING. */
export const serverUp = async ({ admin, address }: { admin: Valkey; address: string }) => ({
  server: address,
  up: admin.status === 'ready' && (await answersPing(admin)),
});

// An admin connection that prepares its server (the explorer's account, then the scripts, which the
// account may not load) on every connect, as after a restart; `prepared` settles with the first.
export function preparedNode(admin: Valkey, address: string, prepare: Prepare) {
  let lastError = 'no answer yet';
  let current = false;
  const first = Promise.withResolvers<boolean>();
  first.promise.catch(() => {});
  const install = async () => {
    try {
      const native = await prepare(admin);
      await loadScripts(admin);
      current = admin.status === 'ready';
      first.resolve(native);
    } catch (error) {
      lastError = (error as Error).message;
      // Refused when the admin may not; anything else (the server went away) is tried at the next `ready`.
      if (/^NOPERM|^ERR unknown command/.test(lastError))
        first.reject(
          new StartRefusedError(
            `the admin user of ${address} may not create the explorer's account (${lastError}); it needs ACL SETUSER, MODULE LIST and SCRIPT LOAD`,
          ),
        );
    }
  };
  admin.on('error', (error: Error) => (lastError = error.message));
  admin.on('close', () => (current = false));
  admin.on('ready', install);
  if (admin.status === 'ready') void install();
  return { admin, address, prepared: first.promise, ready: () => current, lastError: () => lastError };
}

// A connection per node, opened when first asked for: nodes are read and repaired one by one (CLUSTER
// SETSLOT, a node's own keys), which a cluster client would route elsewhere.
function nodeConnections(options: RedisOptions) {
  const open = new Map<string, Valkey>();
  const get = (address: string): Valkey => {
    let client = open.get(address);
    if (!client) {
      // A node that went away fails the one command quickly instead of queueing it.
      client = new Valkey({
        ...splitAddress(address),
        ...options,
        maxRetriesPerRequest: 1,
        retryStrategy: reconnectAfter,
      }).on('error', () => {}); // surfaces on the command that failed
      open.set(address, client);
    }
    return client;
  };
  return { get, all: () => [...open.values()] };
}

/**
 * The handle of the cluster `access` names, warm: every node (replicas included) prepared, both clients
 * holding the slot map, every primary connected as each user, so a first run opens nothing. `within`
 * bounds each step (the caller's deadline), failing it with `what` went wrong.
 */
export async function connectCluster(
  access: ClusterAccess,
  {
    prepare,
    within = (step) => step,
  }: { prepare: Prepare; within?: <T>(step: Promise<T>, what: () => string) => Promise<T> },
) {
  const adminOptions = access.admin ?? {};
  // No ready check: it sends INFO, which the explorer may not run.
  const asExplorer = { ...access.explorer, enableReadyCheck: false };
  const clusterAdmin = clusterClient(access.seeds, { redisOptions: adminOptions });
  // What a run asks several nodes at once goes out in one write per node.
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
    for (const client of [cluster, clusterAdmin, ...explorerNodes.all(), ...adminNodes.all()])
      client.disconnect();
  };
  const seeds = access.seeds.map(({ host, port }) => `${host}:${port}`);
  try {
    const members = await within(
      reachCluster(access.seeds, access.admin),
      () => `the cluster at ${seeds.join(', ')} did not answer CLUSTER SHARDS`,
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
      /** The seeds, as `host:port`. */
      seeds,
      /** The server version the nodes report, e.g. 8.0.2 or 9.1.2. */
      version: await serverVersion(adminNodes.get(primaries[0]!)),
      cluster,
      /** One node as the explorer: it answers MOVED for others' slots. */
      clusterNode,
      clusterAdmin,
      clusterAdminNode: adminNodes.get,
      /** Runs on this cluster take turns, within and across processes. */
      locks: new RunLocks(clusterAdmin),
      /** Each node (replicas included) and whether it answers a PING within HEALTH_PING_MS. */
      servers: () => Promise.all(nodes.map(serverUp)),
      /** Each node's own `cluster_state` when not ok, read within HEALTH_PING_MS: empty when all serve. */
      stateProblems: () => clusterStateProblems(adminNodes.get, seeds, HEALTH_PING_MS),
      /** Whether a run would be served: every node prepared since its last reconnect, the client up. */
      ready: () => cluster.status === 'ready' && nodes.every((node) => node.ready()),
      disconnect,
    };
  } catch (error) {
    disconnect();
    throw error;
  }
}
