// What both connectors do around their fence: take a connection, run the fence on it, and only then
// hand back the verbs; a fence that refuses closes whatever it opened.

import { Valkey, type RedisOptions } from 'iovalkey';
import type { FenceReport } from './fence.ts';

export interface FencedConnection {
  client: Valkey;
  fence: FenceReport;
  close(): Promise<void>;
}

/**
 * Connects to `target` and fences the connection, then adds what `build` makes of it. `target` is a URL,
 * or a connection its owner keeps (the explorer's leased keyspace): the fence runs on it and `close()`
 * leaves it open; `options` apply to a connection this opens.
 */
export async function connectFenced<T extends object>(
  target: string | Valkey,
  options: RedisOptions,
  fence: (client: Valkey) => Promise<FenceReport>,
  build: (client: Valkey) => T,
): Promise<FencedConnection & T> {
  const owned = typeof target === 'string';
  const client = owned ? new Valkey(target, { maxRetriesPerRequest: 1, ...options }) : target;
  // Failures surface as rejected commands: never an unhandled 'error' event (a kill, fd exhaustion).
  if (owned) client.on('error', () => {});
  try {
    const report = await fence(client);
    return {
      client,
      fence: report,
      close: () => (owned ? quit(client) : Promise.resolve()),
      ...build(client),
    };
  } catch (error) {
    if (owned) client.disconnect();
    throw error;
  }
}

async function quit(client: Valkey): Promise<void> {
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
