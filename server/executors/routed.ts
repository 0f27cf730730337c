// A script or module command sent with its slot told up front. iovalkey finds a command's keys — and
// so, on a cluster, the node that owns them — only for command names it knows, spelled in lowercase;
// EVALSHA and EMQ.* go out as the course spells them, so without this a cluster client sent them to a
// random node, met MOVED, sent them again and read the whole slot map anew on a connection of its own.
// The console sends what a reader types (any case) the same way, by the keys its allow-list found.

import { Command } from 'iovalkey';
import { slot } from '../keyspace/index.ts';

/** Whatever takes a command: a connection, a cluster client, or a pipeline of either. */
export interface CommandSink {
  sendCommand(command: Command): unknown;
}

/** `name`, then `args` (the keys among them); a cluster routes it by `keys[0]`'s slot. */
export function routedCommand(
  name: string,
  keys: ReadonlyArray<string | Uint8Array>,
  args: ReadonlyArray<string | number | Uint8Array>,
): Command {
  const command = new Command(name, [...args] as Array<string | number | Buffer>, { replyEncoding: 'utf8' });
  if (keys.length > 0) Object.assign(command, { slot: slot(keys[0]!) });
  return command;
}

/** Sends a routed command and answers its reply (the error as thrown). */
export function sendRouted(
  client: CommandSink,
  name: string,
  keys: ReadonlyArray<string | Uint8Array>,
  args: ReadonlyArray<string | number | Uint8Array>,
): Promise<unknown> {
  const command = routedCommand(name, keys, args);
  client.sendCommand(command);
  return command.promise;
}
