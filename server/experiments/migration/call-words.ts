// A transition's call as the words a probe sends to one node: through its Lua script (EVALSHA) or
// through the module's command, so both migration modes show the same call reaching the same node.

import { scriptFor } from '../../executors/scripts.ts';
import { TRANSITIONS, type Call } from '../../contract/transitions.ts';

/** The call as EVALSHA of its transition's script. */
export const evalWords = (call: Call): string[] => [
  'EVALSHA',
  scriptFor(call.transition).sha,
  String(call.keys.length),
  ...call.keys,
  ...call.args,
];

/** The call as the module's own command (EMQ.*). */
export const nativeWords = (call: Call): string[] => [
  TRANSITIONS[call.transition].command!,
  String(call.keys.length),
  ...call.keys,
  ...call.args,
];
