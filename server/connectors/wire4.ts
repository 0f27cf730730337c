// The scripted connector (wire 4): one connection to one server, fenced by claiming {emq}:version.
// It does not route by slot; the scripts stay cluster-legal because each one's keys share a hashtag.

import type { RedisOptions, Valkey } from 'iovalkey';
import { Jobs } from '../executors/jobs.ts';
import { ScriptedExecutor } from '../executors/scripted.ts';
import { claimingFence } from './fence.ts';
import { connectFenced, type FencedConnection } from './fenced.ts';

export interface Wire4Connection extends FencedConnection {
  jobs: Jobs;
}

/** Connects to `target` (a URL, or a connection its owner keeps) behind the claiming fence. */
export function connectWire4(target: string | Valkey, options: RedisOptions = {}): Promise<Wire4Connection> {
  return connectFenced(target, options, claimingFence, (client) => ({
    jobs: new Jobs(new ScriptedExecutor(client)),
  }));
}
