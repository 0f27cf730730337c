// The scripted connector (wire 4): one connection to one server, fenced by claiming {emq}:version.
// It does not route by slot; the scripts stay cluster-legal because each one's keys share a hashtag.

import { Valkey, type RedisOptions } from 'iovalkey';
import { Jobs } from '../executors/jobs.ts';
import { ScriptedExecutor } from '../executors/scripted.ts';
import { WIRE4_IDENTITY } from '../keyspace/index.ts';
import { claimingFence, type FenceReport } from './fence.ts';

export interface Wire4Connection {
  client: Valkey;
  jobs: Jobs;
  fence: FenceReport;
  close(): Promise<void>;
}

/**
 * Connects to `target` and fences the connection. `target` is a URL, or a connection its owner keeps
 * (the explorer's leased keyspace): the fence runs on it and `close()` leaves it open; `options` apply to
 * a connection it opens.
 */
export async function connectWire4(
  target: string | Valkey,
  options: RedisOptions = {},
): Promise<Wire4Connection> {
  const owned = typeof target === 'string';
  const client = owned ? new Valkey(target, { maxRetriesPerRequest: 1, ...options }) : target;
  // Failures surface as rejected commands: never an unhandled 'error' event (a kill, fd exhaustion).
  if (owned) client.on('error', () => {});
  try {
    const fence = await claimingFence(client, WIRE4_IDENTITY);
    return {
      client,
      jobs: new Jobs(new ScriptedExecutor(client)),
      fence,
      close: () => (owned ? quit(client) : Promise.resolve()),
    };
  } catch (error) {
    if (owned) client.disconnect();
    throw error;
  }
}

export async function quit(client: Valkey): Promise<void> {
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
