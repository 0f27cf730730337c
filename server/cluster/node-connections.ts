/**
 * Plain connections to single nodes of a cluster, one per address, opened when first asked for: the
 * explorer's runtimes read and repair nodes one by one (CLUSTER SETSLOT, a node's own keys), which a cluster
 * client would route elsewhere.
 */
import { Valkey, type RedisOptions } from 'iovalkey';
import { splitAddress } from '../sandbox/cluster-topology.ts';
import { reconnectAfter } from '../settings/bounds.ts';

export interface NodeConnections {
  /** The connection to `address` (host:port), opened on first use. */
  get(address: string): Valkey;
  /** Every connection opened so far, to close them together. */
  all(): Valkey[];
}

export function nodeConnections(options: RedisOptions): NodeConnections {
  const open = new Map<string, Valkey>();
  return {
    get(address: string): Valkey {
      let client = open.get(address);
      if (!client) {
        client = new Valkey({
          ...splitAddress(address),
          ...options,
          // A node that went away fails the one command quickly instead of queueing it.
          maxRetriesPerRequest: 1,
          retryStrategy: reconnectAfter,
        });
        // Errors surface on the command that failed; the event would otherwise crash the process.
        client.on('error', () => {});
        open.set(address, client);
      }
      return client;
    },
    all: () => [...open.values()],
  };
}
