// Every script the site sends goes out one way (`runScript`, and the scripted executor for the
// transitions): EVALSHA first. On NOSCRIPT the script is loaded, the sha the server computed checked
// against ours, and the command sent once more; a second NOSCRIPT is an error, not a loop.
//
// The explorer's account may not SCRIPT LOAD (it would run any Lua): its connections are registered
// with an admin connection to the same server(s), which loads the project's own scripts for them —
// at start and after a restart (`loadScripts`), and here after a NOSCRIPT.

import { Cluster, type Command } from 'iovalkey';
import type { Script } from '../lua/lua-file.ts';
import { CommandExecutor } from './command-executor.ts';
import type { Client } from './executor.ts';
import { callCommand, routedCommand, send } from './routed.ts';
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
  // Sent together: one round trip per server, not one per script (a worker's start waits for them).
  await Promise.all(
    (Object.keys(TRANSITIONS) as TransitionName[]).map((name) => loadScript(admin, scriptFor(name))),
  );
}

/** SCRIPT LOAD of `script` through `loader` (on a cluster, on every primary), its sha checked. */
export async function loadScript(loader: Client, script: Script): Promise<void> {
  const servers = loader instanceof Cluster ? loader.nodes('master') : [loader];
  await Promise.all(
    servers.map(async (server) => {
      const sha = await server.call('SCRIPT', 'LOAD', script.source);
      if (sha !== script.sha) {
        throw new Error(`SCRIPT LOAD of ${script.file} answered sha ${String(sha)}, expected ${script.sha}`);
      }
    }),
  );
}

/**
 * Runs `script` on `client` (a connection or a cluster client, routed by `keys[0]`), loading it through
 * the client's admin (or the client itself) on NOSCRIPT. `asking`: ASKING goes first, in the same write,
 * so an importing node runs it for a slot it does not own yet.
 */
export async function runScript(
  client: Client,
  script: Script,
  keys: readonly string[],
  args: ReadonlyArray<string | number>,
  asking = false,
): Promise<unknown> {
  const once = async () => {
    const command = routedCommand('EVALSHA', keys, [script.sha, keys.length, ...keys, ...args]);
    if (!asking) return send(client, command);
    const pipeline = client.pipeline().call('ASKING');
    const [reply] = await Promise.allSettled([send(pipeline, command), pipeline.exec()]);
    if (reply.status === 'rejected') throw reply.reason;
    return reply.value;
  };
  try {
    return await once();
  } catch (error) {
    if (!String(error).includes('NOSCRIPT')) throw error;
  }
  await loadScript(loaders.get(client) ?? client, script);
  return once();
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
    await loadScript(loaders.get(this.client) ?? this.client, scriptFor(call.transition));
  }
}

function isNoScript(reply: unknown): boolean {
  return reply instanceof WireError && reply.errorClass === 'NOSCRIPT';
}

function uniqueByTransition(calls: readonly Call[]): Call[] {
  return [...new Map(calls.map((call) => [call.transition, call])).values()];
}
