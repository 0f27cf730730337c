// What a run is given: the capabilities its registry row names, each a value or a closure, so the
// runtime's pool, locks and admin clients stay out of the experiment's reach. Only a slot migration is
// given a cluster's admin side, and the atomic mode only what it moves a slot with, never its runtime.

import type { Cluster, Valkey } from 'iovalkey';
import { readShards, type ShardNode } from '../sandbox/cluster-topology.ts';
import { ATOMIC_RUN_LOCK, atomicRuntimeForRun, type AtomicRuntime } from './atomic-runtime.ts';
import { slotLock, withQueueSlot, type ClusterRunContext } from './cluster-run.ts';
import type { Lease } from './keyspace-pool.ts';
import type { ExplorerRuntime } from './runtime.ts';

/** Each capability a row may name, as built for one run from the runtime. */
const BUILD = {
  /** `count` keyspaces of the standalone node, as the explorer, flushed before and after the run. */
  lease:
    ({ pool }) =>
    <T>(count: number, work: (leases: Lease[]) => Promise<T>) =>
      pool.with(count, work),
  /** Whether the standalone node has the native module loaded. */
  native: (runtime) => runtime.native(),
  /** The shared cluster, as the explorer, through a cluster client that follows MOVED and ASK. */
  cluster: ({ cluster }): Cluster => cluster,
  /** One node of the shared cluster (`host:port`), as the explorer: it answers MOVED for others' slots. */
  clusterNode: (runtime) => (address: string) => runtime.clusterNode(address),
  /** `work` in the turn of one slot of the shared cluster (runs on a slot take turns: run-lock.ts). */
  slotTurn:
    ({ locks }) =>
    <T>(slot: number, work: () => Promise<T>, waitMs?: number) =>
      locks.with(slotLock(slot), () => work(), waitMs),
  /** `work` in the turn of a queue's slot, every key of the queue deleted after it (cluster-run.ts). */
  queueTurn:
    (runtime) =>
    <T>(queue: string, work: (context: ClusterRunContext) => Promise<T>) =>
      withQueueSlot(runtime, queue, work),
  /** Two reads of one node (`host:port`) that the explorer may not run: they show a run wrote nothing. */
  nodeReads: (runtime) => (address: string) => {
    const node = runtime.clusterAdminNode(address);
    return Object.freeze({
      /** How many of `keys` the node holds (a node that does not serve their slot answers MOVED). */
      exists: (...keys: string[]) => node.exists(...keys),
      keysInSlot: async (slot: number) => Number(await node.call('CLUSTER', 'COUNTKEYSINSLOT', slot)),
    });
  },
  /** The admin side a slot migration moves slots with (reshard only). */
  migration: (runtime) =>
    Object.freeze({
      /** The shared cluster as the admin: a connection per node, the seeds, the password, the locks. */
      cluster: runtime.migrations,
      /** The Valkey 9.1 cluster of the atomic mode, waited for at most ATOMIC_START_WAIT_MS. */
      atomic: async (): Promise<AtomicGrant> => atomicGrantOf(await atomicRuntimeForRun()),
    }),
} satisfies Record<string, (runtime: ExplorerRuntime) => unknown>;

export type Capabilities = { [N in keyof typeof BUILD]: ReturnType<(typeof BUILD)[N]> };
export type CapabilityName = keyof Capabilities;

/** What a run whose row names `N` is given. */
export type Grant<N extends CapabilityName> = Readonly<Pick<Capabilities, N>>;

/** What the atomic mode moves a slot of the Valkey 9.1 cluster with (reshard only). */
export type AtomicGrant = ReturnType<typeof atomicGrantOf>;

/** What the atomic mode is given of the Valkey 9.1 cluster's runtime. */
export function atomicGrantOf(atomic: AtomicRuntime) {
  return Object.freeze({
    /** The server version the nodes report, e.g. 9.1.2. */
    version: atomic.version,
    /** The cluster as the explorer (the run's worker claims through it). */
    cluster: atomic.cluster,
    /** One node as the explorer (the probes). */
    clusterNode: (address: string) => atomic.clusterNode(address),
    /** One node as the admin: MIGRATESLOTS, the migration jobs, the counts and the clean-up. */
    clusterAdminNode: (address: string) => atomic.clusterAdminNode(address),
    /** The cluster's layout now (CLUSTER SHARDS, as the admin). */
    shards: () => readShards(atomic.clusterAdmin),
    /** `work` in the one turn of the atomic runs (nothing else runs on that cluster). */
    inTurn: <T>(work: () => Promise<T>) => atomic.locks.line.with(ATOMIC_RUN_LOCK, () => work()),
  });
}

/** A frozen object holding the capabilities `names`, and no other member. */
export function grantOf<N extends CapabilityName>(runtime: ExplorerRuntime, names: readonly N[]): Grant<N> {
  return Object.freeze(Object.fromEntries(names.map((name) => [name, BUILD[name](runtime)]))) as Grant<N>;
}
