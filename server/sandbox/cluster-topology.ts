// The cluster's layout as the cluster itself reports it: CLUSTER SHARDS read live from a node, each
// primary with its address, node id and slot ranges — never a constant of ours.

import type { Cluster, Valkey } from 'iovalkey';

export interface ShardNode {
  /** `host:port`, the form MOVED and ASK replies name a node by. */
  address: string;
  id: string;
  /** Inclusive slot ranges, ascending. */
  slots: Array<[number, number]>;
  /** `host:port` of each replica of this primary, when it has any (runs never go to them). */
  replicas?: string[];
}

/** Reads CLUSTER SHARDS (RESP2: flat name/value arrays) into one entry per primary, by first slot. */
export async function readShards(client: Valkey | Cluster): Promise<ShardNode[]> {
  // Asked of one known node, so that a node naming itself with an empty ip (a one-node cluster no peer
  // ever told its address) is named by the address it was reached at, as valkey-cli does.
  const asked = 'nodes' in client ? readyFirst(client.nodes('master')) : client;
  const reply = (await (asked ?? client).call('CLUSTER', 'SHARDS')) as unknown[];
  const reachedAt = asked?.options.host ?? '';
  const shards: ShardNode[] = [];
  for (const shard of reply) {
    const fields = asRecord(shard as unknown[]);
    const flat = (fields.slots as Array<number | string>).map(Number);
    const slots: Array<[number, number]> = [];
    for (let i = 0; i < flat.length; i += 2) slots.push([flat[i]!, flat[i + 1]!]);
    const nodes = (fields.nodes as unknown[][]).map(asRecord);
    const addressOf = (info: Record<string, unknown>) =>
      `${String(info.ip || info.endpoint || reachedAt)}:${String(info.port)}`;
    const replicas = nodes.filter((info) => info.role !== 'master').map(addressOf);
    for (const info of nodes) {
      if (info.role !== 'master') continue;
      const primary: ShardNode = { address: addressOf(info), id: String(info.id), slots };
      if (replicas.length > 0) primary.replicas = replicas;
      shards.push(primary);
    }
  }
  for (const shard of shards) shard.slots.sort((a, b) => a[0] - b[0]);
  return shards.sort((a, b) => (a.slots[0]?.[0] ?? 16384) - (b.slots[0]?.[0] ?? 16384));
}

function readyFirst(nodes: Valkey[]): Valkey | undefined {
  return nodes.find((node) => node.status === 'ready') ?? nodes[0];
}

/** A RESP2 map (a flat name/value array, as CLUSTER SHARDS answers) as a record. */
export function asRecord(flat: unknown[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) record[String(flat[i])] = flat[i + 1];
  return record;
}

/** The node whose ranges hold `slot`, or null when no node serves it. */
export function ownerOf(shards: ShardNode[], slot: number): ShardNode | null {
  return shards.find((shard) => shard.slots.some(([start, end]) => slot >= start && slot <= end)) ?? null;
}

/** `host:port` as a host and a port (IPv6 hosts keep their colons). */
export function splitAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
}
