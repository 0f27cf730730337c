// A probe: one command sent to one node on a plain connection (nothing follows a redirection or retries),
// after ASKING on it when asked, its reply kept exactly as sent — a MOVED, ASK or TRYAGAIN is the answer
// shown, not a failure. A transition's call goes as its Lua script or the module's command.

import type { Valkey } from 'iovalkey';
import { scriptFor } from '../../executors/scripts.ts';
import { TRANSITIONS, type Call } from '../../contract/transitions.ts';
import { isReplyError } from '../../executors/wire-error.ts';
import type { MigrationProbe, ProbeReply } from '../../contract/experiments/migration.ts';
import { isRestarting } from '../../catalogue/restarting.ts';
import { stamp } from './clock.ts';

/** What follows the command's name, for a script and the module alike: numkeys, the keys, the arguments. */
const callWords = (call: Call) => [String(call.keys.length), ...call.keys, ...call.args];

/** The call as EVALSHA of its transition's script. */
export const evalWords = (call: Call) => ['EVALSHA', scriptFor(call.transition).sha, ...callWords(call)];

/** The call as the module's own command (EMQ.*). */
export const nativeWords = (call: Call) => [TRANSITIONS[call.transition].command!, ...callWords(call)];

/** A server reply in the probe's shape (buffers as text, nested arrays kept). */
export function asProbeReply(value: unknown): ProbeReply {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (Array.isArray(value)) return value.map(asProbeReply);
  return String(value);
}

/** One probe of a step: a command sent to one node (`host:port`), after ASKING when `asking`. */
export type ProbeAsk = Pick<MigrationProbe, 'node' | 'label' | 'command' | 'asking'>;

/** `ask` sent on `client`, a connection to its node. */
export async function probe(client: Valkey, { node, label, command, asking = false }: ProbeAsk) {
  const [name, ...args] = command as [string, ...string[]];
  const atMs = stamp();
  const batch = client.pipeline();
  if (asking) batch.call('ASKING');
  const answers = (await batch.call(name, ...args).exec()) ?? [];
  if (asking && answers[0]?.[0]) throw answers[0][0];
  const [error, value] = answers.at(-1) ?? [];
  // A TRYAGAIN is this probe's answer; a dropped connection, or a node restarting (asked alone), is not.
  if (error && !isReplyError(error)) throw error;
  if (error && !asking && isRestarting(error) && !/^TRYAGAIN/.test(error.message)) throw error;
  const reply = error ? { error: error.message } : asProbeReply(value);
  return { label, command, ...(asking ? { asking } : {}), node, reply, atMs };
}
