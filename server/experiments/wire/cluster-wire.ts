// The wire of a run on the cluster: a cluster client of the run's own (so nothing of another reader's
// run is in it), every command each node connection wrote, labelled with the node, in the order they
// were written — MOVED and ASK replies and the client's retries on the owner included — and the proof
// summed over the nodes, read from each node's CLIENT INFO.

import type { Cluster, Valkey } from 'iovalkey';
import {
  CLIENT_INFO_BYTES,
  clientCounters,
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

export async function withOwnCluster<T>(shared: Cluster, work: (cluster: Cluster) => Promise<T>): Promise<T> {
  const cluster = ownCluster(shared);
  try {
    return await work(cluster);
  } finally {
    cluster.disconnect();
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
  const before = await Promise.all(nodes.map(clientCounters));
  const wire: WireCommand[] = [];
  const recordings = nodes.map((node) => recordWire(node, { sink: wire, node: address(node) }));
  try {
    await act();
  } finally {
    for (const recording of recordings) recording.stop();
  }
  const after = await Promise.all(nodes.map(clientCounters));
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
