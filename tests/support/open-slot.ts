// A slot move left half-done, as a site killed mid-move leaves it: `fills`' slot IMPORTING on the next
// node and MIGRATING on its owner, with the given keys written on the owner first. `migrate` sends keys
// over as an operator would: plain (the key moves), COPY (a key on both sides, so the watch's own MIGRATE
// meets BUSYKEY and cannot settle the slot) or REPLACE (finishing that by hand).

import { Valkey } from 'iovalkey';
import { queueKey, slot } from '../../server/contract/keyspace/index.ts';
import { ownerOf, readShards, type ShardNode } from '../../server/sandbox/cluster-topology.ts';
import type { SandboxCluster } from '../../server/sandbox/cluster.ts';

export interface OpenSlot {
  /** The slot left open: `fills`' */
  n: number;
  shards: ShardNode[];
  /** The owner (MIGRATING) and the next node (IMPORTING), as indexes of `shards` and `nodes` */
  s: number;
  t: number;
  nodes: Valkey[];
  migrate(mode: '' | 'COPY' | 'REPLACE', ...keys: string[]): Promise<unknown>;
  close(): void;
}

export async function leaveSlotOpen(cluster: SandboxCluster, keys: string[]): Promise<OpenSlot> {
  const nodes = cluster.url.split(',').map((url) => new Valkey(url));
  const close = () => {
    for (const node of nodes) node.disconnect();
  };
  try {
    const shards = await readShards(nodes[0]!);
    const n = slot(queueKey('fills', 'pending'));
    const s = shards.indexOf(ownerOf(shards, n)!);
    const t = (s + 1) % 3;
    for (const key of keys) await nodes[s]!.set(key, key);
    await nodes[t]!.call('CLUSTER', 'SETSLOT', n, 'IMPORTING', shards[s]!.id);
    await nodes[s]!.call('CLUSTER', 'SETSLOT', n, 'MIGRATING', shards[t]!.id);
    const [host, port] = shards[t]!.address.split(':') as [string, string];
    const { username, password } = cluster.admin!;
    const migrate = (mode: '' | 'COPY' | 'REPLACE', ...moved: string[]) =>
      nodes[s]!.call(
        'MIGRATE',
        host,
        port,
        '',
        0,
        5000,
        ...(mode ? [mode] : []),
        'AUTH2',
        username,
        password,
        'KEYS',
        ...moved,
      );
    return { n, shards, s, t, nodes, migrate, close };
  } catch (error) {
    close();
    throw error;
  }
}
