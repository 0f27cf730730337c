// The sandbox cluster: three cluster-enabled valkey-server processes on loopback, joined with CLUSTER
// MEET and given the 16,384 slots in the three ranges `valkey-cli --cluster create` would give them.
// Each is supervised: killed, it is started again on its port with its own cluster-config-file, so it
// comes back with its node id and its slots and rejoins with no one stepping in. Nothing is persisted
// (the data of a restarted node is gone; its place in the cluster is not).

import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Cluster, Valkey, type ClusterOptions } from 'iovalkey';
import { runDir } from './run-dir.ts';
import { useAddressReachedAt } from './cluster-reached-at.ts';
import { superviseValkeyNode, type SupervisedNode } from './supervisor.ts';
import type { AdminCredentials, ValkeyNodeOptions } from './valkey-process.ts';
import { SLOT_RANGES } from '../contract/slot-ranges.ts';
import { CLUSTER_NODE_TIMEOUT_MS, MAXMEMORY, reconnectAfter } from '../settings/bounds.ts';

/** A node's bus listens on its port + 10000, which must stay a valid port: both below 65536. */
export const HIGHEST_CLUSTER_PORT = 55535 - 10000;

export interface NodeAddress {
  host: string;
  port: number;
}

export interface SandboxCluster {
  /** The seed nodes as VALKEY_CLUSTER_URL spells them: `redis://[user:pass@]host:port`, comma-separated. */
  url: string;
  seeds: NodeAddress[];
  /** The admin's credentials on every node, when the nodes have them (taken from the first URL). */
  admin: AdminCredentials | null;
  /** True when this process started the nodes (and stops them). */
  owned: boolean;
  /** The supervised nodes, in slot order, when owned; empty for an existing cluster. */
  nodes: SupervisedNode[];
  stop(): Promise<void>;
}

export interface ClusterStartOptions {
  /** Path of a module every node loads, or null. */
  module?: string | null;
  /** Words every node passes to the module when it loads. */
  moduleArgs?: string[];
  /** The valkey-server every node runs (default: the one on the PATH); Valkey 9's for the atomic cluster. */
  binary?: string;
  /** Nodes sign in to each other as the admin (Valkey 9's atomic slot migration needs it). */
  peerAuth?: boolean;
  /** The admin user of every node (the `default` user is then off). */
  admin?: AdminCredentials;
  maxmemory?: string;
  /** Extra raw arguments for every node (e.g. `--user …` so an account exists from the first byte). */
  args?: string[];
  settings?: Record<string, string>;
}

/** `redis://h:p,redis://h:p` or `h:p,h:p` (or a mix) as seed addresses; credentials of the first URL. */
export function parseClusterUrl(value: string): { seeds: NodeAddress[]; admin: AdminCredentials | null } {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error('VALKEY_CLUSTER_URL names no node');
  let username: string | undefined;
  let password: string | undefined;
  const seeds = parts.map((part, i) => {
    const url = new URL(/^[a-z]+:\/\//i.test(part) ? part : `redis://${part}`);
    if (i === 0) {
      username = url.username ? decodeURIComponent(url.username) : undefined;
      password = url.password ? decodeURIComponent(url.password) : undefined;
    }
    const port = Number(url.port || 6379);
    if (!url.hostname || !Number.isInteger(port)) throw new Error(`not a node address: ${part}`);
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
  });
  return {
    seeds,
    admin: username || password ? { username: username ?? 'default', password: password ?? '' } : null,
  };
}

/** A cluster client (iovalkey's Cluster) with the retries a sandbox that restarts itself needs. */
export function clusterClient(seeds: NodeAddress[], options: ClusterOptions = {}): Cluster {
  const client = new Cluster(seeds, {
    // A node restarting answers nothing, then CLUSTERDOWN for a moment: retry each for a few seconds.
    maxRedirections: 64,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: 2000,
    clusterRetryStrategy: reconnectAfter,
    ...options,
    redisOptions: { maxRetriesPerRequest: 1, ...options.redisOptions },
  });
  client.on('error', () => {});
  useAddressReachedAt(client);
  return client;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port whose bus port (+10000) is free too, both at most 55535. */
export async function freeClusterPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = randomInt(16_000, HIGHEST_CLUSTER_PORT + 1);
    if ((await canListen(port)) && (await canListen(port + 10_000))) return port;
  }
  throw new Error('no free port pair (port, port + 10000) found at or below 55535');
}

async function startNode(options: ValkeyNodeOptions): Promise<SupervisedNode> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await superviseValkeyNode({ ...options, port: await freeClusterPort() });
    } catch (error) {
      // Another process may take the port (or its bus port) between our probe and the bind.
      if (attempt >= 5) throw error;
    }
  }
}

/** Waits until every node says cluster_state:ok and knows all `count` nodes. */
export async function waitClusterOk(
  nodes: NodeAddress[],
  admin: AdminCredentials | null = null,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const clients = nodes.map(({ host, port }) => {
    const client = new Valkey({ host, port, ...admin, maxRetriesPerRequest: 0, lazyConnect: true });
    client.on('error', () => {});
    return client;
  });
  try {
    for (;;) {
      const infos = await Promise.all(
        clients.map((client) => client.call('CLUSTER', 'INFO').then(String, () => '')),
      );
      const ok = infos.every(
        (info) => info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${nodes.length}\r`),
      );
      if (ok) return;
      if (Date.now() > deadline) {
        throw new Error(`the cluster never reached cluster_state:ok on every node:\n${infos.join('\n')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    for (const client of clients) client.disconnect();
  }
}

/** Starts, joins and supervises three nodes; resolves once every node says cluster_state:ok. */
export async function startCluster(options: ClusterStartOptions = {}): Promise<SandboxCluster> {
  const dir = await mkdtemp(join(await runDir(), 'cluster-'));
  const nodes: SupervisedNode[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    nodes.push(
      ...(await Promise.all(
        SLOT_RANGES.map((_, i) =>
          startNode({
            cluster: true,
            clusterConfigFile: join(dir, `nodes-${i}.conf`),
            module: options.module ?? null,
            moduleArgs: options.moduleArgs,
            binary: options.binary,
            peerAuth: options.peerAuth,
            admin: options.admin,
            maxmemory: options.maxmemory ?? MAXMEMORY.clusterNode,
            args: options.args,
            settings: {
              // A node restarted by its supervisor, or frozen for a while (SIGSTOP, a stalled VM), is back
              // well within this, so no peer marks it failed. With no replicas a failure mark buys nothing
              // (no one can take over) and costs much: the peers then say cluster_state:fail too, and a
              // primary with slots keeps the mark for twice this after it is back.
              'cluster-node-timeout': String(CLUSTER_NODE_TIMEOUT_MS),
              ...options.settings,
            },
          }),
        ),
      )),
    );
    const admins = nodes.map((node) => new Valkey(node.url, { maxRetriesPerRequest: 0 }));
    for (const admin of admins) admin.on('error', () => {});
    try {
      for (const node of nodes.slice(1)) await admins[0]!.call('CLUSTER', 'MEET', '127.0.0.1', node.port);
      await Promise.all(
        SLOT_RANGES.map(([start, end], i) =>
          admins[i]!.call('CLUSTER', 'ADDSLOTSRANGE', String(start), String(end)),
        ),
      );
    } finally {
      for (const admin of admins) admin.disconnect();
    }
    const seeds = nodes.map(({ port }) => ({ host: '127.0.0.1', port }));
    await waitClusterOk(seeds, options.admin ?? null);
    return {
      url: nodes.map((node) => node.url).join(','),
      seeds,
      admin: options.admin ?? null,
      owned: true,
      nodes,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** An existing cluster, named by VALKEY_CLUSTER_URL: nothing to start or stop. */
export function existingCluster(url: string): SandboxCluster {
  const { seeds, admin } = parseClusterUrl(url);
  return { url, seeds, admin, owned: false, nodes: [], stop: async () => {} };
}
