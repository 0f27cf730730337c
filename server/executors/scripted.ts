// The scripted executor: EVALSHA first. On NOSCRIPT it loads the script, checks that the sha the server
// computed equals ours, and retries once; a second NOSCRIPT is an error, not a loop.
//
// The explorer's account may not SCRIPT LOAD (it would run any Lua): its connections are registered
// with an admin connection to the same server(s), which loads the project's own scripts for them —
// at start and after a restart (`loadScripts`), and here after a NOSCRIPT.

import { Cluster, type Command } from 'iovalkey';
import { CommandExecutor } from './command-executor.ts';
import type { Client } from './executor.ts';
import { callCommand } from './routed.ts';
import { scriptFor } from './scripts.ts';
import { TRANSITIONS, type Call, type Reply, type TransitionName } from '../contract/transitions.ts';
import { WireError } from './wire-error.ts';

const loaders = new WeakMap<object, Client>();

/** SCRIPT LOAD for `client`'s scripts goes through `admin` (same server, or same cluster). */
export function loadScriptsThrough(client: Client, admin: Client): void {
  loaders.set(client, admin);
}

/** The admin connection that loads scripts for `client`, if one was registered. */
export function scriptLoaderOf(client: Client): Client | undefined {
  return loaders.get(client);
}

/** Loads every transition's script through `admin` (on a cluster, on every primary). */
export async function loadScripts(admin: Client): Promise<void> {
  for (const transition of Object.keys(TRANSITIONS) as TransitionName[]) {
    await loadOne(admin, transition);
  }
}

async function loadOne(loader: Client, transition: TransitionName): Promise<void> {
  const script = scriptFor(transition);
  const servers = loader instanceof Cluster ? loader.nodes('master') : [loader];
  for (const server of servers) {
    const sha = await server.call('SCRIPT', 'LOAD', script.source);
    if (sha !== script.sha) {
      throw new Error(`SCRIPT LOAD of ${script.file} answered sha ${String(sha)}, expected ${script.sha}`);
    }
  }
}

export class ScriptedExecutor extends CommandExecutor {
  readonly kind = 'scripted';

  async run(call: Call): Promise<Reply> {
    try {
      return await super.run(call);
    } catch (error) {
      if (!isNoScript(error)) throw error;
    }
    await this.load(call);
    return super.run(call);
  }

  async runMany(calls: readonly Call[]): Promise<Array<Reply | WireError>> {
    const replies = await super.runMany(calls);
    const missing = calls.filter((_, i) => isNoScript(replies[i]));
    if (missing.length === 0) return replies;
    for (const call of uniqueByTransition(missing)) await this.load(call);
    // Only the calls that never ran go again, in their order.
    const again = await super.runMany(missing);
    let next = 0;
    return replies.map((reply) => (isNoScript(reply) ? again[next++]! : reply));
  }

  protected command(call: Call): Command {
    return callCommand('EVALSHA', call, [scriptFor(call.transition).sha]);
  }

  /** Loads the script where EVALSHA runs: on a cluster, every primary has a script cache of its own. */
  private async load(call: Call): Promise<void> {
    await loadOne(loaders.get(this.client) ?? this.client, call.transition);
  }
}

function isNoScript(reply: unknown): boolean {
  return reply instanceof WireError && reply.errorClass === 'NOSCRIPT';
}

function uniqueByTransition(calls: readonly Call[]): Call[] {
  return [...new Map(calls.map((call) => [call.transition, call])).values()];
}
