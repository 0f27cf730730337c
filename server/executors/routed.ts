// A script or module command sent with its slot told up front. iovalkey finds a command's keys — and
// so, on a cluster, the node that owns them — only for command names it knows, spelled in lowercase;
// EVALSHA and EMQ.* go out as the course spells them, so without this a cluster client sent them to a
// random node, met MOVED, sent them again and read the whole slot map anew on a connection of its own.
// The console sends what a reader types (any case) the same way, by the keys its allow-list found.

import { Command } from 'iovalkey';
import { slot } from '../contract/keyspace/index.ts';
import type { Call } from '../contract/transitions.ts';

/** `name`, then `args` (the keys among them); a cluster routes it by `keys[0]`'s slot. */
export function routedCommand(
  name: string,
  keys: ReadonlyArray<string | Uint8Array>,
  args: ReadonlyArray<string | number | Uint8Array>,
): Command {
  const command = new Command(name, [...args] as Array<string | number | Buffer>, { replyEncoding: 'utf8' });
  if (keys.length > 0) Object.assign(command, { slot: slotOf(keys[0]!) });
  return command;
}

/**
 * Slots already found, by key: a run's keys are its queue's, met again run after run, and finding one
 * encodes the key and sums its hashtag. Bounded (emptied when full).
 */
const slots = new Map<string, number>();
const SLOTS_KEPT = 4096;

function slotOf(key: string | Uint8Array): number {
  if (typeof key !== 'string') return slot(key);
  let found = slots.get(key);
  if (found === undefined) {
    if (slots.size >= SLOTS_KEPT) slots.clear();
    slots.set(key, (found = slot(key)));
  }
  return found;
}

/** A transition's call as `name [before…] numkeys key… arg…` (EVALSHA <sha>, or EMQ.<VERB>), routed. */
export function callCommand(name: string, call: Call, before: readonly string[] = []): Command {
  return routedCommand(name, call.keys, [...before, call.keys.length, ...call.keys, ...call.args]);
}

/**
 * Sends `command` on a connection or a cluster client, or queues it on a pipeline of either (whose
 * types do not show the method they have), and answers its reply (the error as thrown).
 */
export function send(sink: object, command: Command): Promise<unknown> {
  (sink as { sendCommand(command: Command): unknown }).sendCommand(command);
  return command.promise;
}

/** Builds and sends a routed command. */
export function sendRouted(
  sink: object,
  name: string,
  keys: ReadonlyArray<string | Uint8Array>,
  args: ReadonlyArray<string | number | Uint8Array>,
): Promise<unknown> {
  return send(sink, routedCommand(name, keys, args));
}
