// The scripted executor: EVALSHA first. On NOSCRIPT it loads the script, checks that the sha the server
// computed equals ours, and retries once; a second NOSCRIPT is an error, not a loop.

import { Cluster } from 'iovalkey';
import { verdicts, type Client, type Executor } from './executor.ts';
import { scriptFor } from './scripts.ts';
import type { Call, Reply } from './transitions.ts';
import { WireError } from './wire-error.ts';

export class ScriptedExecutor implements Executor {
  readonly kind = 'scripted';
  private readonly client: Client;

  constructor(client: Client) {
    this.client = client;
  }

  async run(call: Call): Promise<Reply> {
    try {
      return await this.evalsha(call);
    } catch (error) {
      const wire = WireError.from(error);
      if (!(wire instanceof WireError) || wire.errorClass !== 'NOSCRIPT') throw wire;
    }
    await this.load(call);
    try {
      return await this.evalsha(call);
    } catch (error) {
      throw WireError.from(error);
    }
  }

  async runMany(calls: readonly Call[]): Promise<Array<Reply | WireError>> {
    const replies = await this.pipeline(calls);
    const missing = calls.filter((_, i) => isNoScript(replies[i]));
    if (missing.length === 0) return replies;
    for (const call of uniqueByTransition(missing)) await this.load(call);
    // Only the calls that never ran go again, in their order.
    const again = await this.pipeline(missing);
    let next = 0;
    return replies.map((reply) => (isNoScript(reply) ? again[next++]! : reply));
  }

  private async evalsha(call: Call): Promise<Reply> {
    const { sha } = scriptFor(call.transition);
    return (await this.client.call('EVALSHA', sha, call.keys.length, ...call.keys, ...call.args)) as Reply;
  }

  private async pipeline(calls: readonly Call[]): Promise<Array<Reply | WireError>> {
    const pipeline = this.client.pipeline();
    for (const call of calls) {
      pipeline.call('EVALSHA', scriptFor(call.transition).sha, call.keys.length, ...call.keys, ...call.args);
    }
    return verdicts(await pipeline.exec());
  }

  /** Loads the script where EVALSHA runs: on a cluster, every primary has a script cache of its own. */
  private async load(call: Call): Promise<void> {
    const script = scriptFor(call.transition);
    const servers = this.client instanceof Cluster ? this.client.nodes('master') : [this.client];
    for (const server of servers) {
      const sha = await server.call('SCRIPT', 'LOAD', script.source);
      if (sha !== script.sha) {
        throw new Error(`SCRIPT LOAD of ${script.file} answered sha ${String(sha)}, expected ${script.sha}`);
      }
    }
  }
}

function isNoScript(reply: unknown): boolean {
  return reply instanceof WireError && reply.errorClass === 'NOSCRIPT';
}

function uniqueByTransition(calls: readonly Call[]): Call[] {
  return [...new Map(calls.map((call) => [call.transition, call])).values()];
}
