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

export async function connectWire4(url: string, options: RedisOptions = {}): Promise<Wire4Connection> {
  const client = new Valkey(url, { maxRetriesPerRequest: 1, ...options });
  try {
    const fence = await claimingFence(client, WIRE4_IDENTITY);
    return { client, jobs: new Jobs(new ScriptedExecutor(client)), fence, close: () => quit(client) };
  } catch (error) {
    client.disconnect();
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
