// The native connector (wire 6): its fence only reads {emq}:version, since on a native node the
// identity is installed by an operator and never claimed by a connector. Behind it, a host may run
// each call on either executor against the same keys.

import { Valkey, type RedisOptions } from 'iovalkey';
import { Jobs } from '../executors/jobs.ts';
import { NativeExecutor } from '../executors/native.ts';
import { ScriptedExecutor } from '../executors/scripted.ts';
import { WIRE6_IDENTITY } from '../keyspace/index.ts';
import { readingFence, type FenceReport } from './fence.ts';
import { quit } from './wire4.ts';

export interface Wire6Connection {
  client: Valkey;
  /** The job verbs on the native module's EMQ.* commands. */
  jobs: Jobs;
  /** The same verbs on the scripted executor, same connection, same keys. */
  scripted: Jobs;
  fence: FenceReport;
  close(): Promise<void>;
}

/**
 * Connects to `target` and fences the connection. `target` is a URL, or a connection its owner keeps
 * (the explorer's leased keyspace): the fence runs on it and `close()` leaves it open; `options` apply to
 * a connection it opens.
 */
export async function connectWire6(
  target: string | Valkey,
  options: RedisOptions = {},
): Promise<Wire6Connection> {
  const owned = typeof target === 'string';
  const client = owned ? new Valkey(target, { maxRetriesPerRequest: 1, ...options }) : target;
  // Failures surface as rejected commands: never an unhandled 'error' event (a kill, fd exhaustion).
  if (owned) client.on('error', () => {});
  try {
    const fence = await readingFence(client, WIRE6_IDENTITY);
    return {
      client,
      jobs: new Jobs(new NativeExecutor(client)),
      scripted: new Jobs(new ScriptedExecutor(client)),
      fence,
      close: () => (owned ? quit(client) : Promise.resolve()),
    };
  } catch (error) {
    if (owned) client.disconnect();
    throw error;
  }
}
