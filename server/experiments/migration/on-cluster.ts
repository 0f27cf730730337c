// What a migration runs on, whichever cluster's slot it moves: the one small view of a runtime both
// modes use, built here from what each cluster hands a run (the shared Valkey 8 cluster through the
// run's grant, the Valkey 9.1 one through its own runtime).

import type { Cluster, Valkey } from 'iovalkey';
import type { AtomicRuntime } from '../../explorer/atomic-runtime.ts';
import type { Grant } from '../../explorer/grants.ts';
import { readShards, type ShardNode } from '../../sandbox/cluster-topology.ts';

export interface MigrationCluster {
  /** One node as the admin (`host:port`): the fill, the reads of where the keys are, the clean-up. */
  admin(address: string): Valkey;
  /** One node as the explorer: the probes. */
  reader(address: string): Valkey;
  /** The cluster as the explorer: the worker's claims and a cluster client's. */
  cluster: Cluster;
  /** Every primary and the slots it serves (CLUSTER SHARDS). */
  shards(): Promise<ShardNode[]>;
  /** The Valkey version the nodes report (INFO server), e.g. 8.0.1. */
  version(): Promise<string>;
}

/** What a reshard is given: the admin side of both clusters, and the explorer's view of the shared one. */
export type MigrationGrant = Grant<'migration' | 'queueTurn' | 'cluster' | 'clusterNode'>;

/** The shared Valkey 8 cluster, as a reshard's grant reaches it. */
export function sharedCluster(grant: MigrationGrant): MigrationCluster {
  const { dial, seeds } = grant.migration.cluster;
  return {
    admin: dial,
    reader: grant.clusterNode,
    cluster: grant.cluster,
    shards: () => readShards(dial(seeds[0]!)),
    async version() {
      const info = String(await dial(seeds[0]!).call('INFO', 'server'));
      // Valkey also reports the Redis version it is compatible with (redis_version:7.2.4): its own first.
      const said = /valkey_version:([^\r\n]+)/.exec(info) ?? /redis_version:([^\r\n]+)/.exec(info);
      return said?.[1] ?? 'unknown';
    },
  };
}

/** The Valkey 9.1 cluster of the atomic mode. */
export function atomicCluster(runtime: AtomicRuntime): MigrationCluster {
  return {
    admin: (address) => runtime.clusterAdminNode(address),
    reader: (address) => runtime.clusterNode(address),
    cluster: runtime.cluster,
    shards: () => readShards(runtime.clusterAdmin),
    version: async () => runtime.version,
  };
}
