// The first look at a cluster, at start: each seed VALKEY_CLUSTER_URL names is reached with one plain,
// bounded connection (never a cluster client, which retries for ever), asked CLUSTER INFO and CLUSTER
// SHARDS, and what is wrong is said in one line naming the node. A node that names itself with an empty
// address (a one-node cluster) is named by the address it was reached at, as valkey-cli does.

import { Valkey } from 'iovalkey';
import type { NodeAddress } from './cluster.ts';
import { asRecord } from './cluster-topology.ts';
import { StartRefusedError } from './standalone-offer.ts';
import type { AdminCredentials } from './valkey-process.ts';
import { ADMIN_ANSWER_MS, ADMIN_CONNECT_MS } from '../settings/bounds.ts';

export interface ClusterMember {
  /** `host:port`. */
  address: string;
  role: 'primary' | 'replica';
}

/**
 * Every node of the cluster (primaries and their replicas), as the first seed that answers well sees
 * it; or a StartRefusedError naming each seed and what was wrong with it.
 */
export async function reachCluster(
  seeds: NodeAddress[],
  admin: AdminCredentials | null,
): Promise<ClusterMember[]> {
  const problems: string[] = [];
  for (const seed of seeds) {
    const where = `${seed.host}:${seed.port}`;
    try {
      return await membersSeenBy(seed, admin);
    } catch (error) {
      problems.push(`cluster node ${where}: ${whatWentWrong(error)}`);
    }
  }
  throw new StartRefusedError(`the cluster cannot be used — ${problems.join('; ')}`);
}

async function membersSeenBy(seed: NodeAddress, admin: AdminCredentials | null): Promise<ClusterMember[]> {
  const client = new Valkey({
    ...seed,
    ...admin,
    lazyConnect: true,
    enableReadyCheck: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: ADMIN_CONNECT_MS,
    commandTimeout: ADMIN_ANSWER_MS,
  });
  // What the connection itself heard (a refused connect, a refused AUTH) says more than the
  // "Connection is closed" or NOAUTH a command then gets.
  let heard: Error | null = null;
  client.on('error', (error: Error) => (heard ??= error));
  try {
    await client.connect();
    const info = String(await client.call('CLUSTER', 'INFO'));
    const state = /cluster_state:(\w+)/.exec(info)?.[1];
    if (state !== 'ok') {
      const assigned = /cluster_slots_assigned:(\d+)/.exec(info)?.[1] ?? '?';
      throw new Error(
        `it says cluster_state:${state ?? '?'} (${assigned} of 16384 slots assigned); every slot must be served`,
      );
    }
    return readMembers(await client.call('CLUSTER', 'SHARDS'), seed);
  } catch (error) {
    throw heard ?? error;
  } finally {
    client.disconnect();
  }
}

/** CLUSTER SHARDS (RESP2 name/value arrays) as members; an empty ip is the asked node's own. */
export function readMembers(reply: unknown, asked: NodeAddress): ClusterMember[] {
  const members: ClusterMember[] = [];
  for (const shard of reply as unknown[][]) {
    for (const node of (asRecord(shard).nodes as unknown[][]).map(asRecord)) {
      const port = Number(node.port);
      const ip = String(node.ip || node.endpoint || '');
      if (!ip && port !== asked.port) continue; // a node nobody can reach by name
      if (node.health === 'failed') continue;
      const role = node.role === 'master' ? 'primary' : 'replica';
      members.push({ address: `${ip || asked.host}:${port}`, role });
    }
  }
  return members;
}

/** One clause for the start log: the server's own reply, or what the connection did. */
export function whatWentWrong(error: unknown): string {
  const message = String((error as Error)?.message ?? error);
  if (/cluster support disabled/i.test(message)) return 'it is not a cluster node (cluster-enabled is no)';
  if (/ECONNREFUSED/.test(message)) return 'connection refused (nothing listens there)';
  if (/timed? ?out|ETIMEDOUT/i.test(message)) return `no answer within ${ADMIN_CONNECT_MS / 1000} s`;
  if (/^(NOAUTH|WRONGPASS)/.test(message)) {
    return `${message} — give the admin's user and password in the URL (redis://user:password@host:port)`;
  }
  if (/^NOPERM/.test(message)) return `${message} — the URL's user needs the CLUSTER commands and ACL`;
  return message;
}
