// The sandbox, started one way for the site, the tests and the benchmarks: a standalone node (with the
// native module when it is built) and the cluster part, each supervised (restarted on the same port if
// it dies). VALKEY_URL (and VALKEY_CLUSTER_URL) point at existing servers instead; their URLs carry the
// admin credentials when those servers need them.
//
// Nodes started here have no open door: the `default` user is off, and an `admin` user with a random
// password is the only way in, so no other local process can FLUSHALL, rewrite ACLs or SHUTDOWN them.

import { randomBytes } from 'node:crypto';
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
  cluster: SandboxEndpoint | null;
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
  env?: NodeJS.ProcessEnv;
}

export const ADMIN_USER = 'admin';

function adminCredentials(): AdminCredentials {
  return { username: ADMIN_USER, password: randomBytes(18).toString('base64url') };
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const env = options.env ?? process.env;
  const admin = adminCredentials();
  const parts: SandboxPart[] = [];
  try {
    const nativeModule = env.VALKEY_URL || options.native === false ? null : nativeModulePath();
    const standalone = await startStandalonePart(env, admin, { ...options, module: nativeModule });
    parts.push(standalone);
    const cluster = options.cluster === false ? null : await startClusterPart(env, admin);
    if (cluster) parts.push(cluster);
    return {
      standalone: standalone.endpoint,
      cluster: cluster?.endpoint ?? null,
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
    admin,
  });
  return { endpoint: { url: node.url }, stop: node.stop };
}

/**
 * The cluster part: a cluster-enabled node that owns every slot (loading the module too, so its exact
 * refusal on a cluster can be shown). This is the seam where a multi-node cluster plugs in.
 */
export async function startClusterPart(
  env: NodeJS.ProcessEnv,
  admin: AdminCredentials,
): Promise<SandboxPart> {
  if (env.VALKEY_CLUSTER_URL) return { endpoint: { url: env.VALKEY_CLUSTER_URL }, stop: async () => {} };
  const node = await superviseValkeyNode({ cluster: true, module: nativeModulePath(), admin });
  return { endpoint: { url: node.url }, stop: node.stop };
}
