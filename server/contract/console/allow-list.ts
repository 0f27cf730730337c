// What the console runs: the rows of commands.ts, checked here on the server, and nothing else. A line
// is either planned — the exact argv to send, the node to send it to, the keys it names — or refused by
// name with what is allowed on its target, before anything reaches a server. Free of Node APIs: the page
// shows the same list.

import { catalogueText } from '../catalogue/catalogue-text.ts';
import { queueKey, versionKey } from '../keyspace/index.ts';
import { CORE_TRANSITIONS } from '../transitions.ts';
import { allowedNames, CONSOLE_COMMANDS, keysOf, type ConsoleCommand } from './commands.ts';
import { exampleQueue } from './key-forms.ts';
import {
  bad,
  keysOutside,
  numkeysSpelling,
  sameBytes,
  text,
  upper,
  type Node,
  type Planned,
  type Refused,
} from './line-checks.ts';
import { nearestCommands } from './nearest-command.ts';

export { isGrammarKey, type Node, type Planned, type Refused } from './line-checks.ts';

/** A refusal of a command by name: why, then the names the console runs on `node`. */
function notAllowedMessage(command: string, why: string, node: Node = 'standalone'): string {
  return catalogueText('NOT_ALLOWED', { command, why, 'the names the console runs': allowedNames(node) });
}

/** Why a known command is not in the console: said with the refusal, so the reader learns something. */
const REFUSED: Record<string, string> = {
  EVAL: 'it runs any Lua the reader sends; the console runs only the project’s own scripts, as SCRIPT <verb>',
  EVAL_RO: 'it runs any Lua; use SCRIPT <verb>',
  EVALSHA: 'use SCRIPT <verb>, which sends EVALSHA with the sha of the project’s own script',
  EVALSHA_RO: 'use SCRIPT <verb>',
  FCALL: 'functions are not part of this protocol',
  FCALL_RO: 'functions are not part of this protocol',
  FUNCTION: 'functions are not part of this protocol',
  SELECT: 'each run has a keyspace of its own; another database belongs to another reader',
  SWAPDB: 'each run has a keyspace of its own',
  MOVE: 'each run has a keyspace of its own',
  FLUSHDB: 'the keyspace is fresh for every run and flushed after it',
  FLUSHALL: 'it would empty every reader’s keyspace',
  CONFIG: 'the sandbox’s settings are not the reader’s',
  ACL: 'the sandbox’s accounts are not the reader’s',
  AUTH: 'the console runs as the sandbox’s own restricted account',
  HELLO: 'the console runs as the sandbox’s own restricted account',
  CLIENT: 'connections are the server’s business, not the console’s',
  DEBUG: 'it can stop or corrupt the server',
  MODULE: 'the native module is loaded by the operator, once',
  KEYS: 'it walks the whole keyspace in one call; use SCAN with a COUNT',
  MIGRATE: 'keys never leave the sandbox',
  SHUTDOWN: 'the sandbox is shared',
  MULTI: 'each transition is already atomic; a transaction would hold the connection across lines',
  EXEC: 'there are no transactions in the console',
  DISCARD: 'there are no transactions in the console',
  WATCH: 'there are no transactions in the console',
  WAIT: 'it blocks until replicas answer; the sandbox has none',
  WAITAOF: 'it blocks; the sandbox keeps no files',
  SUBSCRIBE: 'it turns the connection into a subscriber that never answers a command',
  PSUBSCRIBE: 'it turns the connection into a subscriber',
  SSUBSCRIBE: 'it turns the connection into a subscriber',
  PUBLISH: 'pub/sub is not part of the keyspace',
  MONITOR: 'it would show other readers’ commands',
  SAVE: 'the sandbox keeps no files',
  BGSAVE: 'the sandbox keeps no files',
  REPLICAOF: 'the sandbox’s topology is not the reader’s',
  SLAVEOF: 'the sandbox’s topology is not the reader’s',
  RENAME: 'a renamed key leaves the grammar’s control; build keys with the grammar',
  COPY: 'a copy is a key the grammar did not build',
  SORT: 'it can write a key outside the grammar',
};
for (const blocking of [
  'BLPOP',
  'BRPOP',
  'BLMOVE',
  'BLMPOP',
  'BRPOPLPUSH',
  'BZPOPMIN',
  'BZPOPMAX',
  'BZMPOP',
  'XREAD',
  'XREADGROUP',
]) {
  REFUSED[blocking] = 'it may block the connection waiting for data; the console answers every line at once';
}

/** A command name is printable ASCII; anything else is refused by name before any server sees it. */
const ASCII_NAME = /^[\x21-\x7e]+$/;

/** Commands the console does not run, each with the one it runs that does the nearest job. */
const INSTEAD: Record<string, string> = {
  HMSET: 'HSET, which takes several field value pairs',
  HSETNX: 'HSET',
  HMGET: 'HGET, one field at a time, or HGETALL',
  HKEYS: 'HGETALL',
  HVALS: 'HGETALL',
  HLEN: 'HGETALL',
  HEXISTS: 'HGET',
  ZCARD: 'ZRANGE key 0 -1',
  ZCOUNT: 'ZRANGE key min max BYSCORE',
  ZRANGEBYSCORE: 'ZRANGE key min max BYSCORE',
  ZREVRANGE: 'ZRANGE key start stop REV',
  ZRANK: 'ZRANGE key 0 -1',
  ZINCRBY: 'ZADD',
  MGET: 'GET, one key a line',
  STRLEN: 'GET',
  UNLINK: 'DEL',
  SETNX: `SET ${versionKey()} <value> NX`,
  LLEN: 'LRANGE key 0 -1',
  SCARD: 'SMEMBERS',
  SISMEMBER: 'SMEMBERS',
  PTTL: 'TTL',
};

/** Why an unknown name is refused: not known, and the allowed name it is a typo of, if one is near. */
function unknown(name: string): string {
  if (Object.hasOwn(INSTEAD, name)) return `not a command the console runs; use ${INSTEAD[name]}`;
  const names = Object.keys(CONSOLE_COMMANDS).map((command) => command.split(' ')[0]!);
  const near = nearestCommands(name, [...new Set(names)]);
  return near.length > 0
    ? `not a command the console knows; did you mean ${near.join(' or ')}?`
    : 'not a command the console knows';
}

/** The key a refusal offers instead: the row's kind of key, in the typed key's queue where it names one. */
function exampleKeyOf(row: ConsoleCommand): (typed: string) => string {
  return (typed) =>
    row.exampleKey === 'version' ? versionKey() : queueKey(exampleQueue(typed), row.exampleKey);
}

function arity(
  command: string,
  args: Uint8Array[],
  [min, max]: readonly [number, number],
  form: string,
): Refused | null {
  if (args.length >= min && args.length <= max) return null;
  const wanted = min === max ? `${min}` : `${min} to ${max}`;
  const plural = (n: number) => `${n} argument${n === 1 ? '' : 's'}`;
  return bad(
    command,
    `the console runs it only as ${form}; that is ${wanted === '1' ? plural(1) : `${wanted} arguments`} after the name, found ${args.length}`,
  );
}

/** Plans `args` by `row`, under the name the reader typed, for `node`; or refuses the line. */
function byRow(
  command: string,
  row: ConsoleCommand,
  args: Uint8Array[],
  argv: Uint8Array[],
  node: Node,
): Planned | Refused {
  const inForm = (found: string) => bad(command, `the console runs it only as ${row.form}; ${found}`);
  const keys = keysOf(row, args);
  const refusal =
    arity(command, args, row.arity, row.form) ??
    row.check?.(args, inForm) ??
    (row.keys === 'numkeys' ? numkeysSpelling(command, args[0]) : null) ??
    keysOutside(command, keys, row.keyRule, exampleKeyOf(row));
  if (refusal) return refusal;
  if (!row.runsOn.includes(node))
    return notAllowed(command, row.elsewhere ?? `it does not run on "${node}"`, node);
  return { ok: true, command, argv, keys, node: row.sentTo ?? 'standalone', writes: row.writes };
}

function notAllowed(command: string, why: string, node: Node): Refused {
  return { ok: false, code: 'NOT_ALLOWED', command, message: notAllowedMessage(command, why, node) };
}

/** Plans one line's arguments for `node`, or refuses it by name. */
export function plan(argv: Uint8Array[], node: Node = 'standalone'): Planned | Refused {
  const typed = text(argv[0]!);
  if (!ASCII_NAME.test(typed) || !sameBytes(argv[0]!, typed))
    return notAllowed(
      typed,
      'a command name is ASCII letters, digits and punctuation; Unicode look-alikes such as ſ or ı are not letters of any command',
      node,
    );
  const name = upper(argv[0]!);
  const args = argv.slice(1);
  if (name === 'SCRIPT') {
    const sub = args[0] ? upper(args[0]) : '';
    const verb = CORE_TRANSITIONS.find((transition) => transition.toUpperCase() === sub);
    if (!verb) {
      const near = nearestCommands(
        sub,
        CORE_TRANSITIONS.map((transition) => transition.toUpperCase()),
      ).map((verb) => `SCRIPT ${verb}`);
      const guess = sub && near.length > 0 ? `; did you mean ${near.join(' or ')}?` : '';
      return notAllowed(
        `SCRIPT ${sub}`.trim(),
        `the console runs only SCRIPT <${CORE_TRANSITIONS.join('|')}>${guess}`,
        node,
      );
    }
    const planned = byRow(`SCRIPT ${sub}`, CONSOLE_COMMANDS.SCRIPT!, args.slice(1), argv, node);
    return planned.ok ? { ...planned, script: verb } : planned;
  }
  if (name === 'CLUSTER') {
    const sub = args[0] ? upper(args[0]) : '';
    if (sub !== 'KEYSLOT')
      return notAllowed(
        `CLUSTER ${sub}`.trim(),
        'of CLUSTER, the console runs only CLUSTER KEYSLOT key',
        node,
      );
    return byRow('CLUSTER KEYSLOT', CONSOLE_COMMANDS['CLUSTER KEYSLOT']!, args.slice(1), argv, node);
  }
  const row = Object.hasOwn(CONSOLE_COMMANDS, name) ? CONSOLE_COMMANDS[name] : undefined;
  if (row) return byRow(name, row, args, argv, node);
  return notAllowed(name, REFUSED[name] ?? unknown(name), node);
}
