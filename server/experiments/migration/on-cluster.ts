// What a migration runs on, whichever cluster's slot it moves: the one small view of a cluster both
// modes use (the atomic mode's grant has this shape), built here for the shared Valkey 8 cluster from
// the reshard's grant.

import type { Cluster, Valkey } from 'iovalkey';
import type { AtomicRuntime } from '../../explorer/atomic-runtime.ts';
import type { Grant } from '../../explorer/grants.ts';
import { readShards, type ShardNode } from '../../sandbox/cluster-topology.ts';

export interface MigrationCluster {
  /** The Valkey version the nodes report (INFO server), e.g. 8.0.1. */
  version: string;
  /** The cluster as the explorer: the worker's claims and a cluster client's. */
  cluster: Cluster;
  /** One node (`host:port`) as the explorer: the probes. */
  clusterNode(address: string): Valkey;
  /** One node as the admin: the migration's commands, the fill, where the keys are, the clean-up. */
  clusterAdminNode(address: string): Valkey;
  /** Every primary and the slots it serves (CLUSTER SHARDS), by first slot. */
  shards(): Promise<ShardNode[]>;
}

/** What a reshard is given: the admin side of both clusters, and the explorer's view of the shared one. */
export type MigrationGrant = Grant<'migration' | 'queueTurn' | 'cluster' | 'clusterNode'>;

/** The shared Valkey 8 cluster, as a reshard's grant reaches it. */
export async function sharedCluster(grant: MigrationGrant): Promise<MigrationCluster> {
  const { dial, seeds } = grant.migration.cluster;
  const info = String(await dial(seeds[0]!).call('INFO', 'server'));
  // Valkey also reports the Redis version it is compatible with (redis_version:7.2.4): its own first.
  const said = /valkey_version:([^\r\n]+)/.exec(info) ?? /redis_version:([^\r\n]+)/.exec(info);
  return {
    version: said?.[1] ?? 'unknown',
    cluster: grant.cluster,
    clusterNode: grant.clusterNode,
    clusterAdminNode: dial,
    shards: () => readShards(dial(seeds[0]!)),
  };
}

/** The Valkey 9.1 cluster of the atomic mode. */
export function atomicCluster(runtime: AtomicRuntime): MigrationCluster {
  return {
    version: runtime.version,
    cluster: runtime.cluster,
    clusterNode: (address) => runtime.clusterNode(address),
    clusterAdminNode: (address) => runtime.clusterAdminNode(address),
    shards: () => readShards(runtime.clusterAdmin),
  };
}
