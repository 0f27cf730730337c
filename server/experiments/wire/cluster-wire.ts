// The wire of a run on the cluster: a cluster client of the run's own (so nothing of another reader's
// run is in it), every command each node connection wrote, labelled with the node, in the order they
// were written — MOVED and ASK replies and the client's retries on the owner included — and the proof
// summed over the nodes, read from each node's CLIENT INFO.

import type { Cluster, Valkey } from 'iovalkey';
import {
  CLIENT_INFO_BYTES,
  clientCounters,
  countersNow,
  recordWire,
  type WireCommand,
  type WireProof,
} from './recorder.ts';

/** A cluster client of the run's own, with the shared one's seeds and options. */
export function ownCluster(shared: Cluster): Cluster {
  const cluster = shared.duplicate();
  cluster.on('error', () => {});
  return cluster;
}

/**
 * Idle run clients per shared cluster. A run has its client to itself while it runs, which is all the
 * wire needs (it counts by difference), so clients are kept for the next run instead of a fresh client
 * per run: connecting to every node and reading the slot map cost a run about 5 ms of the site's CPU.
 */
const IDLE_MAX = 16;
const idle = new WeakMap<Cluster, Cluster[]>();

function idleOf(shared: Cluster): Cluster[] {
  let pool = idle.get(shared);
  if (!pool) {
    const clients: Cluster[] = (pool = []);
    idle.set(shared, clients);
    // The runtime closing its cluster closes the kept clients too, so nothing holds the process open.
    shared.once('end', () => clients.splice(0).forEach((client) => client.disconnect()));
  }
  return pool;
}

export async function withOwnCluster<T>(shared: Cluster, work: (cluster: Cluster) => Promise<T>): Promise<T> {
  const pool = idleOf(shared);
  const cluster = pool.pop() ?? ownCluster(shared);
  let keep = false;
  try {
    const result = await work(cluster);
    // Only a client that finished its run cleanly and is still connected serves the next one.
    keep = cluster.status === 'ready' && shared.status !== 'end' && pool.length < IDLE_MAX;
    return result;
  } finally {
    if (keep) pool.push(cluster);
    else cluster.disconnect();
  }
}

function address(node: Valkey): string {
  return `${node.options.host}:${node.options.port}`;
}

export async function clusterWireDuring(
  cluster: Cluster,
  act: () => Promise<void>,
): Promise<{ wire: WireCommand[]; proof: WireProof }> {
  // Connected to every primary, with the slot map read, before anything is recorded.
  if (cluster.status !== 'ready') await new Promise((resolve) => cluster.once('ready', resolve));
  const nodes = cluster.nodes('master');
  const before = await Promise.all(nodes.map(countersNow));
  const wire: WireCommand[] = [];
  const recordings = nodes.map((node) => recordWire(node, { sink: wire, node: address(node) }));
  try {
    await act();
  } finally {
    for (const recording of recordings) recording.stop();
  }
  const after = await Promise.all(nodes.map((node) => clientCounters(node)));
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return {
    wire,
    proof: {
      reached: sum(after.map((a, i) => a.commands - before[i]!.commands - 1)),
      listed: wire.length,
      bytesReceived: sum(after.map((a, i) => a.bytesIn - before[i]!.bytesIn - CLIENT_INFO_BYTES)),
      bytesListed: sum(recordings.map((recording) => recording.bytes())),
    },
  };
}
