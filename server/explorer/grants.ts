// What a run is given: the capabilities its registry row names (server/api/registry.ts), built for the
// run from this process's one runtime, and nothing else. Each is a value or a closure: the runtime's
// pool, locks and admin clients stay behind the closures, out of reach of the experiment's code. Only a
// slot migration (reshard, both modes) is given the admin side of a cluster, and the atomic mode only
// what it moves a slot of the Valkey 9.1 cluster with: never that cluster's runtime, nor its close().

import type { Cluster, Valkey } from 'iovalkey';
import { readShards, type ShardNode } from '../sandbox/cluster-topology.ts';
import { ATOMIC_RUN_LOCK, atomicRuntimeWithin, type AtomicRuntime } from './atomic-runtime.ts';
import { slotLock, withQueueSlot, type ClusterRunContext } from './cluster-run.ts';
import type { Lease } from './keyspace-pool.ts';
import type { ExplorerRuntime } from './runtime.ts';
import type { ClusterAdmin } from './slot-migration.ts';
import { ATOMIC_START_WAIT_MS } from '../settings/bounds.ts';

/** Two reads of one cluster node that the explorer's account may not run, and nothing more. */
export interface NodeReads {
  /** How many of `keys` the node holds (a node that does not serve their slot answers MOVED). */
  exists(...keys: string[]): Promise<number>;
  /** CLUSTER COUNTKEYSINSLOT: how many keys of the slot the node holds. */
  keysInSlot(slot: number): Promise<number>;
}

/** What the atomic mode moves a slot of the Valkey 9.1 cluster with (reshard only). */
export interface AtomicGrant {
  /** The server version the nodes report, e.g. 9.1.2. */
  version: string;
  /** The cluster as the explorer (the run's worker claims through it). */
  cluster: Cluster;
  /** One node as the explorer (the probes). */
  clusterNode(address: string): Valkey;
  /** One node as the admin: MIGRATESLOTS, the migration jobs, the counts and the clean-up. */
  clusterAdminNode(address: string): Valkey;
  /** The cluster's layout now (CLUSTER SHARDS, as the admin). */
  shards(): Promise<ShardNode[]>;
  /** `work` in the one turn of the atomic runs (nothing else runs on that cluster). */
  inTurn<T>(work: () => Promise<T>): Promise<T>;
}

/** The admin side a slot migration moves slots with (reshard only). */
export interface MigrationAdmin {
  /** The shared cluster as the admin: a connection per node, the seeds, the password, the locks. */
  cluster: ClusterAdmin;
  /** The Valkey 9.1 cluster of the atomic mode, waited for at most ATOMIC_START_WAIT_MS. */
  atomic(): Promise<AtomicGrant>;
}

export interface Capabilities {
  /** `count` keyspaces of the standalone node, as the explorer, flushed before and after the run. */
  lease<T>(count: number, work: (leases: Lease[]) => Promise<T>): Promise<T>;
  /** Whether the standalone node has the native module loaded. */
  native: boolean;
  /** The shared cluster, as the explorer, through a cluster client that follows MOVED and ASK. */
  cluster: Cluster;
  /** One node of the shared cluster (`host:port`), as the explorer: it answers MOVED for others' slots. */
  clusterNode(address: string): Valkey;
  /** `work` in the turn of one slot of the shared cluster (runs on a slot take turns: run-lock.ts). */
  slotTurn<T>(slot: number, work: () => Promise<T>, waitMs?: number): Promise<T>;
  /** `work` in the turn of a queue's slot, every key of the queue deleted after it (cluster-run.ts). */
  queueTurn<T>(
    queue: string,
    work: (context: ClusterRunContext) => Promise<T>,
  ): Promise<T & { leftBehind: number }>;
  /** The reads of one node (`host:port`) that show a run wrote nothing. */
  nodeReads(address: string): NodeReads;
  /** What a slot migration needs: the admin. */
  migration: MigrationAdmin;
}

export type CapabilityName = keyof Capabilities;

/** What a run whose row names `N` is given. */
export type Grant<N extends CapabilityName> = Readonly<Pick<Capabilities, N>>;

const BUILD: { [N in CapabilityName]: (runtime: ExplorerRuntime) => Capabilities[N] } = {
  lease:
    ({ pool }) =>
    <T>(count: number, work: (leases: Lease[]) => Promise<T>) =>
      pool.with(count, work),
  native: (runtime) => runtime.native(),
  cluster: ({ cluster }) => cluster,
  clusterNode: (runtime) => (address) => runtime.clusterNode(address),
  slotTurn:
    ({ locks }) =>
    <T>(slot: number, work: () => Promise<T>, waitMs?: number) =>
      locks.with(slotLock(slot), () => work(), waitMs),
  queueTurn:
    (runtime) =>
    <T>(queue: string, work: (context: ClusterRunContext) => Promise<T>) =>
      withQueueSlot(runtime, queue, work),
  nodeReads: (runtime) => (address) => {
    const node = runtime.clusterAdminNode(address);
    return Object.freeze({
      exists: (...keys: string[]) => node.exists(...keys),
      keysInSlot: async (slot: number) => Number(await node.call('CLUSTER', 'COUNTKEYSINSLOT', slot)),
    });
  },
  migration: (runtime) =>
    Object.freeze({
      cluster: runtime.migrations,
      atomic: async () => atomicGrantOf(await atomicRuntimeWithin(ATOMIC_START_WAIT_MS)),
    }),
};

/** What the atomic mode is given of the Valkey 9.1 cluster's runtime: a frozen object of closures. */
export function atomicGrantOf(atomic: AtomicRuntime): AtomicGrant {
  return Object.freeze({
    version: atomic.version,
    cluster: atomic.cluster,
    clusterNode: (address: string) => atomic.clusterNode(address),
    clusterAdminNode: (address: string) => atomic.clusterAdminNode(address),
    shards: () => readShards(atomic.clusterAdmin),
    inTurn: <T>(work: () => Promise<T>) => atomic.locks.line.with(ATOMIC_RUN_LOCK, () => work()),
  });
}

/** A frozen plain object holding the capabilities `names`, and no other member. */
export function grantOf<N extends CapabilityName>(runtime: ExplorerRuntime, names: readonly N[]): Grant<N> {
  return Object.freeze(Object.fromEntries(names.map((name) => [name, BUILD[name](runtime)]))) as Grant<N>;
}
