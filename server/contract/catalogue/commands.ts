// The arity of every EMQ.* command, read off the transition table (the table that builds every call),
// so the catalogue cannot disagree with what the executors send.

import { queuePrefix } from '../keyspace/index.ts';
import { CORE_TRANSITIONS, TRANSITIONS, type CoreTransition } from '../transitions.ts';

export interface CommandArity {
  transition: CoreTransition;
  command: string;
  /** The scripted executor's script for the same call (`EVALSHA <sha of it> …`). */
  script: string;
  numkeys: number;
  keys: string[];
  args: string[];
  /** Words on the wire, the command name and numkeys included: `EMQ.<VERB> <numkeys> <keys…> <args…>`. */
  words: number;
  /** The call as a usage line: each key as `emq:{q}:<type>` in the table's notation, each argument `<name>`. */
  usage: string;
}

const word = (name: string) => `<${name.replace(/ /g, '-')}>`;

export function commandArities(): CommandArity[] {
  return CORE_TRANSITIONS.map((transition) => {
    const { command, script, keys, args } = TRANSITIONS[transition];
    return {
      transition,
      command,
      script,
      numkeys: keys.length,
      keys: [...keys],
      args: [...args],
      words: 2 + keys.length + args.length,
      usage: [
        command,
        String(keys.length),
        ...keys.map((type) => queuePrefix('q') + type),
        ...args.map(word),
      ].join(' '),
    };
  });
}
