// A cluster node that no peer ever told its own address (a one-node cluster: CLUSTER ADDSLOTSRANGE 0
// 16383 on one node, no MEET) names itself with an empty host in CLUSTER SLOTS. valkey-cli then uses the
// address it reached the node at; iovalkey's Cluster skips such an entry, is left with no slot mapped,
// and waits for ever. This fills the empty host in the answer of the node that was asked — and only for
// that node's own port, since only a node itself can be nameless to itself.

import type { Cluster, Valkey } from 'iovalkey';

type SlotsRefresher = (node: Valkey | undefined, callback: (error?: Error) => void) => void;

/** Makes `cluster` name a nameless node by the address it reached that node at. */
export function useAddressReachedAt(cluster: Cluster): void {
  // getInfoFromNode is how iovalkey (0.4) refreshes its slots: from a duplicate of one node's connection.
  const internal = cluster as unknown as { getInfoFromNode: SlotsRefresher };
  const refresh = internal.getInfoFromNode.bind(cluster);
  internal.getInfoFromNode = (node, callback) => refresh(node && reachedAt(node), callback);
  // A duplicate (a run's own cluster client) is a new Cluster: it needs the same help.
  const duplicate = cluster.duplicate.bind(cluster);
  cluster.duplicate = (...args: Parameters<Cluster['duplicate']>) => {
    const copy = duplicate(...args);
    useAddressReachedAt(copy);
    return copy;
  };
}

function reachedAt(node: Valkey): Valkey {
  const { host, port } = node.options;
  return new Proxy(node, {
    get(target, property) {
      if (property !== 'duplicate') return Reflect.get(target, property, target);
      return (...args: Parameters<Valkey['duplicate']>) => {
        const copy = target.duplicate(...args);
        fillSlotsReplies(copy, host ?? '127.0.0.1', port ?? 6379);
        return copy;
      };
    },
  });
}

/** `copy.cluster('SLOTS', …)` answers with `host` wherever the node at `port` named itself with ''. */
function fillSlotsReplies(copy: Valkey, host: string, port: number): void {
  const cluster = copy.cluster.bind(copy) as (...args: unknown[]) => Promise<unknown>;
  (copy as unknown as { cluster: unknown }).cluster = (...args: unknown[]) => {
    const callback = typeof args.at(-1) === 'function' ? (args.pop() as Callback) : undefined;
    const asksSlots = String(args[0]).toUpperCase() === 'SLOTS';
    const reply = cluster(...args).then((answer) => (asksSlots ? filled(answer, host, port) : answer));
    if (callback)
      reply.then(
        (answer) => callback(null, answer),
        (error: Error) => callback(error),
      );
    return reply;
  };
}

type Callback = (error: Error | null, answer?: unknown) => void;

function filled(answer: unknown, host: string, port: number): unknown {
  if (!Array.isArray(answer)) return answer;
  for (const range of answer as unknown[][]) {
    for (const node of range.slice(2) as unknown[][]) {
      if (Array.isArray(node) && !node[0] && Number(node[1]) === port) node[0] = host;
    }
  }
  return answer;
}
