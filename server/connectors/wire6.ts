// The native connector (wire 6): its fence only reads {emq}:version, since on a native node the
// identity is installed by an operator and never claimed by a connector. Behind it, a host may run
// each call on either executor against the same keys.

import type { RedisOptions, Valkey } from 'iovalkey';
import { Jobs } from '../executors/jobs.ts';
import { NativeExecutor } from '../executors/native.ts';
import { ScriptedExecutor } from '../executors/scripted.ts';
import { readingFence } from './fence.ts';
import { connectFenced, type FencedConnection } from './fenced.ts';

export interface Wire6Connection extends FencedConnection {
  /** The job verbs on the native module's EMQ.* commands. */
  jobs: Jobs;
  /** The same verbs on the scripted executor, same connection, same keys. */
  scripted: Jobs;
}

/** Connects to `target` (a URL, or a connection its owner keeps) behind the reading fence. */
export function connectWire6(target: string | Valkey, options: RedisOptions = {}): Promise<Wire6Connection> {
  return connectFenced(target, options, readingFence, (client) => ({
    jobs: new Jobs(new NativeExecutor(client)),
    scripted: new Jobs(new ScriptedExecutor(client)),
  }));
}
