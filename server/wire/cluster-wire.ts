// The wire of a run on the cluster: a cluster client of the run's own (so nothing of another reader's
// run is in it), every command each node connection wrote, labelled with the node, in the order they
// were written — MOVED and ASK replies and the client's retries on the owner included — and the proof
// summed over the nodes, read from each node's CLIENT INFO.

import { catalogueText } from '../contract/catalogue/catalogue-text.ts';
import type { Cluster, ClusterOptions, Valkey } from 'iovalkey';
import { BusyError } from '../catalogue/busy.ts';
import { runDeadline } from '../run-deadline.ts';
import {
  CLIENT_INFO_BYTES,
  clientCounters,
  countersNow,
  recordWire,
  type WireCommand,
  type WireProof,
} from './recorder.ts';
import { CLUSTER_CLIENT_WAIT_MS, CLUSTER_CLIENTS } from '../settings/bounds.ts';

/** A cluster client of the run's own, with the shared one's seeds and options (and `options` over them). */
export function ownCluster(shared: Cluster, options: Partial<ClusterOptions> = {}): Cluster {
  const cluster = shared.duplicate([], options);
  cluster.on('error', () => {});
  return cluster;
}

// Run clients per shared cluster. A run has its client to itself while it runs, which is all the wire
// needs (it counts by difference), so clients are kept for the next run instead of a fresh client per
// run: connecting to every node and reading the slot map cost a run about 5 ms of the site's CPU. At
// most CLUSTER_CLIENTS exist at once; a run that finds them all busy waits in line for one (making a
// 51st client for the 51st reader, then dropping it, cost more than the wait).

interface RunClients {
  idle: Cluster[];
  /** Clients made and not yet dropped, idle or running. */
  made: number;
  line: Array<(client: Cluster | null) => void>;
}

const clientsOf = new WeakMap<Cluster, RunClients>();

function runClients(shared: Cluster): RunClients {
  let clients = clientsOf.get(shared);
  if (!clients) {
    const made: RunClients = (clients = { idle: [], made: 0, line: [] });
    clientsOf.set(shared, made);
    // The runtime closing its cluster closes the kept clients too, so nothing holds the process open.
    shared.once('end', () => made.idle.splice(0).forEach((client) => client.disconnect()));
  }
  return clients;
}

export class ClusterBusyError extends BusyError {
  constructor(waitedMs: number) {
    super(catalogueText('BUSY', { ms: waitedMs }, 'cluster'));
    this.name = 'ClusterBusyError';
  }
}

async function takeClient(shared: Cluster, clients: RunClients): Promise<Cluster> {
  const idle = clients.idle.pop();
  if (idle) return idle;
  if (clients.made < CLUSTER_CLIENTS) {
    clients.made += 1;
    return ownCluster(shared);
  }
  let timer: NodeJS.Timeout | undefined;
  const handed = await new Promise<Cluster | null>((resolve) => {
    clients.line.push(resolve);
    timer = setTimeout(() => {
      clients.line.splice(clients.line.indexOf(resolve), 1);
      resolve(null);
    }, CLUSTER_CLIENT_WAIT_MS);
  });
  clearTimeout(timer);
  if (!handed) throw new ClusterBusyError(CLUSTER_CLIENT_WAIT_MS);
  return handed;
}

function giveClient(shared: Cluster, clients: RunClients, client: Cluster, keep: boolean): void {
  if (!keep) {
    client.disconnect();
    clients.made -= 1;
    // Room for one more: the first in line makes its own.
    const next = clients.line.shift();
    if (next) {
      clients.made += 1;
      next(ownCluster(shared));
    }
    return;
  }
  const next = clients.line.shift();
  if (next) next(client);
  else clients.idle.push(client);
}

export async function withOwnCluster<T>(shared: Cluster, work: (cluster: Cluster) => Promise<T>): Promise<T> {
  const clients = runClients(shared);
  const cluster = await takeClient(shared, clients);
  // Past the run's deadline its client is cut: every command it has out, or sends, fails at once, so
  // the run ends instead of going on after its answer (run-deadline.ts).
  const deadline = runDeadline();
  const cut = () => cluster.disconnect();
  deadline?.addEventListener('abort', cut, { once: true });
  let keep = false;
  try {
    deadline?.throwIfAborted();
    const result = await work(cluster);
    // Only a client that finished its run cleanly and is still connected serves the next one.
    keep = cluster.status === 'ready' && shared.status !== 'end';
    return result;
  } finally {
    deadline?.removeEventListener('abort', cut);
    giveClient(shared, clients, cluster, keep);
  }
}

/** Resolves once `cluster` is connected to every primary, with the slot map read. */
export async function whenReady(cluster: Cluster): Promise<void> {
  if (cluster.status !== 'ready') await new Promise((resolve) => cluster.once('ready', resolve));
}

/** Records what each of `nodes` writes into one `sink`, each line labelled with its node (`host:port`). */
export function recordEachNode(nodes: Valkey[], sink: WireCommand[]): Array<ReturnType<typeof recordWire>> {
  return nodes.map((node) => recordWire(node, { sink, node: `${node.options.host}:${node.options.port}` }));
}

export async function clusterWireDuring(
  cluster: Cluster,
  act: () => Promise<void>,
): Promise<{ wire: WireCommand[]; proof: WireProof }> {
  // Connected to every primary, with the slot map read, before anything is recorded.
  await whenReady(cluster);
  const nodes = cluster.nodes('master');
  const before = await Promise.all(nodes.map(countersNow));
  const wire: WireCommand[] = [];
  const recordings = recordEachNode(nodes, wire);
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
