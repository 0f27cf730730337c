// The sandbox, started one way for the site, the tests and the benchmarks: a standalone node (with the
// native module when it is built) and a three-node cluster (cluster.ts), each node supervised (restarted on the same port if
// it dies). VALKEY_URL (and VALKEY_CLUSTER_URL) point at existing servers instead; their URLs carry the
// admin credentials when those servers need them.
//
// Nodes started here have no open door: the `default` user is off, and an `admin` user with a random
// password is the only way in, so no other local process can FLUSHALL, rewrite ACLs or SHUTDOWN them.

import { randomBytes } from 'node:crypto';
import { existingCluster, startCluster, type ClusterStartOptions, type SandboxCluster } from './cluster.ts';
import { superviseValkeyNode } from './supervisor.ts';
import { nativeModulePath, type AdminCredentials, type ValkeyNodeOptions } from './valkey-process.ts';

export interface SandboxEndpoint {
  /** Where to connect as the admin (credentials in the URL when the node has them). */
  url: string;
}

/** One part of the sandbox: where it answers, and how to stop what was started for it (if anything). */
export interface SandboxPart {
  endpoint: SandboxEndpoint;
  stop(): Promise<void>;
}

export interface Sandbox {
  standalone: SandboxEndpoint;
  cluster: SandboxCluster | null;
  /** The module loaded into the standalone node when this process started it, else null. */
  nativeModule: string | null;
  stop(): Promise<void>;
}

export interface SandboxOptions {
  cluster?: boolean;
  /** Load the native module into the standalone node when it is built (default true). */
  native?: boolean;
  /** Logical databases of the standalone node (the pool leases all but database 0). */
  databases?: number;
  standaloneSettings?: ValkeyNodeOptions['settings'];
  /** Extra raw arguments for the standalone node (e.g. `--user …`, an account from its first connection). */
  standaloneArgs?: string[];
  /** Extra options for the cluster's nodes (e.g. an account that exists from their first connection). */
  clusterOptions?: ClusterStartOptions;
  env?: NodeJS.ProcessEnv;
}

export const ADMIN_USER = 'admin';

function adminCredentials(): AdminCredentials {
  return { username: ADMIN_USER, password: randomBytes(18).toString('base64url') };
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const env = options.env ?? process.env;
  const admin = adminCredentials();
  const parts: Array<{ stop(): Promise<void> }> = [];
  try {
    const nativeModule = env.VALKEY_URL || options.native === false ? null : nativeModulePath();
    const standalone = await startStandalonePart(env, admin, { ...options, module: nativeModule });
    parts.push(standalone);
    const cluster =
      options.cluster === false ? null : await startClusterPart(env, admin, options.clusterOptions);
    if (cluster) parts.push(cluster);
    return {
      standalone: standalone.endpoint,
      cluster,
      nativeModule,
      stop: async () => void (await Promise.all(parts.map((part) => part.stop()))),
    };
  } catch (error) {
    await Promise.all(parts.map((part) => part.stop()));
    throw error;
  }
}

async function startStandalonePart(
  env: NodeJS.ProcessEnv,
  admin: AdminCredentials,
  options: SandboxOptions & { module: string | null },
): Promise<SandboxPart> {
  if (env.VALKEY_URL) return { endpoint: { url: env.VALKEY_URL }, stop: async () => {} };
  const node = await superviseValkeyNode({
    module: options.module,
    databases: options.databases,
    settings: options.standaloneSettings,
    args: options.standaloneArgs,
    admin,
  });
  return { endpoint: { url: node.url }, stop: node.stop };
}

/**
 * The cluster part: three cluster-enabled nodes holding the slots in three ranges, loading the module
 * too (so a real cluster's routing and the owner's exact refusal can be shown); or the existing cluster
 * VALKEY_CLUSTER_URL names by one or more seed nodes.
 */
export async function startClusterPart(
  env: NodeJS.ProcessEnv,
  admin: AdminCredentials,
  options: ClusterStartOptions = {},
): Promise<SandboxCluster> {
  if (env.VALKEY_CLUSTER_URL) return existingCluster(env.VALKEY_CLUSTER_URL);
  return startCluster({ module: nativeModulePath(), admin, ...options });
}
