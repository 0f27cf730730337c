// What the console runs: this list, checked here on the server, and nothing else. A line is either
// planned — the exact argv to send, the node to send it to, the keys it names — or refused by name
// with what is allowed, before anything reaches a server. Free of Node APIs: the page shows the same list.

import { catalogueText, quoted } from '../catalogue/catalogue-text.ts';
import { CORE_TRANSITIONS, TRANSITIONS, type CoreTransition } from '../transitions.ts';
import {
  isBrandedId,
  isFixedKeyType,
  jobKey,
  PREFIX,
  queueKey,
  RESERVE_BASE,
  splitQueueKey,
  validQueue,
  versionKey,
} from '../keyspace/index.ts';
import { formsFor, grammarExample, NAMESPACE, structureOf } from './key-forms.ts';
import { nearestCommands } from './nearest-command.ts';
import { CONSOLE_CAPS } from '../limits.ts';

const NATIVE = CORE_TRANSITIONS.map((verb) => TRANSITIONS[verb].command);
const READS = ['GET', 'HGETALL', 'HGET', 'ZRANGE', 'ZSCORE', 'LRANGE', 'SMEMBERS', 'TYPE', 'EXISTS', 'TTL'];

/** Each command the console runs, in the one form it takes: a refusal quotes the form it broke. */
const FORMS: Record<string, string> = {
  ...Object.fromEntries(NATIVE.map((command) => [command, `${command} numkeys key… arg…`])),
  SCRIPT: `SCRIPT <${CORE_TRANSITIONS.join('|')}> numkeys key… arg…`,
  GET: 'GET key',
  HGETALL: 'HGETALL key',
  HGET: 'HGET key field',
  ZRANGE: 'ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]',
  ZSCORE: 'ZSCORE key member',
  LRANGE: 'LRANGE key start stop',
  SMEMBERS: 'SMEMBERS key',
  TYPE: 'TYPE key',
  EXISTS: `EXISTS key… (≤${CONSOLE_CAPS.keys} keys)`,
  TTL: 'TTL key',
  SCAN: `SCAN cursor [MATCH pattern] [COUNT ≤${CONSOLE_CAPS.scanCount}] [TYPE type]`,
  DBSIZE: 'DBSIZE',
  SET: `SET ${versionKey()} <value> NX [GET]`,
  HSET: `HSET key field value (≤${CONSOLE_CAPS.pairs} pairs, a key of the grammar)`,
  ZADD: `ZADD key [NX|XX|GT|LT|CH] score member (≤${CONSOLE_CAPS.pairs} pairs, a key of the grammar)`,
  DEL: `DEL key… (≤${CONSOLE_CAPS.keys} keys of the grammar)`,
  CLUSTER: 'CLUSTER KEYSLOT key',
  PING: 'PING [message]',
  ECHO: 'ECHO message',
  TIME: 'TIME',
};

/** The allowed forms, as the API's answer and the page list them (once, never per refused line). */
export const ALLOWED: readonly string[] = Object.values(FORMS);

/** The names the console runs, said with every refusal instead of the whole list of forms. */
export const ALLOWED_NAMES = `EMQ.* (the ${NATIVE.length} verbs), SCRIPT <verb>, ${READS.join(', ')}, SCAN, DBSIZE, SET ${versionKey()} … NX, HSET, ZADD, DEL, CLUSTER KEYSLOT, PING, ECHO, TIME`;

/** A refusal of a command by name: why, then the names the console does run. */
export function notAllowedMessage(command: string, why: string): string {
  return catalogueText('NOT_ALLOWED', { command, why, 'the names the console runs': ALLOWED_NAMES });
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

export type Node = 'standalone' | 'cluster';

export interface Planned {
  ok: true;
  /** What the reader typed, upper-cased: EMQ.CLAIM, SCRIPT CLAIM, GET… */
  command: string;
  /** For SCRIPT <verb>: the transition whose script runs. */
  script?: CoreTransition;
  argv: Uint8Array[];
  keys: Uint8Array[];
  node: Node;
  writes: boolean;
}

export interface Refused {
  ok: false;
  code: 'NOT_ALLOWED' | 'BAD_ARGUMENTS' | 'KEY_NOT_ALLOWED' | 'BAD_QUOTING';
  command: string;
  message: string;
}

const decoder = new TextDecoder();
const text = (bytes: Uint8Array) => decoder.decode(bytes);
/**
 * ASCII upper case only: JavaScript's Unicode upper-casing turns `ſcan` into `SCAN` and `ı` into `I`,
 * which would let a name the server does not know pass the list as one it does.
 */
const upper = (bytes: Uint8Array) => text(bytes).replace(/[a-z]+/g, (letters) => letters.toUpperCase());
/** A command name is printable ASCII; anything else is refused by name before any server sees it. */
const ASCII_NAME = /^[\x21-\x7e]+$/;
const sameBytes = (a: Uint8Array, b: string) =>
  text(a) === b && new TextEncoder().encode(b).length === a.length;

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
  const near = nearestCommands(name, Object.keys(FORMS));
  return near.length > 0
    ? `not a command the console knows; did you mean ${near.join(' or ')}?`
    : 'not a command the console knows';
}

function notAllowed(command: string, why: string): Refused {
  return { ok: false, code: 'NOT_ALLOWED', command, message: notAllowedMessage(command, why) };
}

function bad(command: string, message: string, code: Refused['code'] = 'BAD_ARGUMENTS'): Refused {
  return { ok: false, code, command, message: `${command}: ${message}` };
}

/** The sandbox account reaches only the namespace's keys and the reserve's. */
function inNamespace(key: Uint8Array): boolean {
  const shown = text(key);
  return (shown.startsWith(PREFIX) || shown.startsWith(RESERVE_BASE)) && sameBytes(key, shown);
}

/** A key the grammar builds: a fixed type, a job row with a branded id, or a lane of a branded group. */
export function isGrammarKey(key: Uint8Array): boolean {
  const shown = text(key);
  if (!sameBytes(key, shown)) return false;
  const parts = splitQueueKey(shown);
  if (!parts) return false;
  try {
    validQueue(parts.queue);
  } catch {
    return false;
  }
  if (isFixedKeyType(parts.type) && parts.type !== 'job:') return queueKey(parts.queue, parts.type) === shown;
  if (parts.type.startsWith('job:')) {
    const id = parts.type.slice(4);
    return isBrandedId(id) && jobKey(parts.queue, id) === shown;
  }
  const lane = /^g:(.{14}):pending$/s.exec(parts.type);
  return lane !== null && isBrandedId(lane[1]!);
}

/** The key a refusal offers instead: one the command takes, in the typed key's queue where it names one. */
function exampleKey(command: string, typed: string, reads: boolean): string {
  const name = command.split(' ')[0]!;
  if (name === 'GET') return versionKey();
  const like = grammarExample(typed, reads);
  const queue = like.slice(0, like.lastIndexOf(':') + 1);
  if (name === 'HGETALL' || name === 'HGET' || name === 'HSET') return `${queue}meta`;
  if (name === 'LRANGE') return `${queue}ring`;
  if (name === 'SMEMBERS') return `${queue}paused`;
  return `${queue}pending`;
}

function keysOutside(command: string, keys: Uint8Array[], rule: 'namespace' | 'grammar'): Refused | null {
  const check = rule === 'grammar' ? isGrammarKey : inNamespace;
  const outside = keys.find((key) => !check(key));
  if (!outside) return null;
  const example = exampleKey(command, text(outside), rule === 'namespace');
  const what =
    rule === 'grammar'
      ? `it writes only keys of the grammar, emq:{<queue>}:<type> or a job row emq:{<queue>}:job:<branded id>, such as ${example}`
      : `it reads only keys that start with ${NAMESPACE}, such as ${example}`;
  const message = catalogueText('KEY_NOT_ALLOWED', {
    command,
    key: quoted(text(outside)),
    'reads or writes': rule === 'grammar' ? 'writes' : 'reads',
    'what it takes, with an example': what,
  });
  return { ok: false, code: 'KEY_NOT_ALLOWED', command, message };
}

/**
 * A whole number as the server reads one (its strict string2ll, and the native module's
 * parse_integer): `0`, or an optional `-` then digits without a leading zero, at most 20 characters.
 * Nothing else — no `+`, `02`, `-0`, blank, point or `0x` — is a number to the server. (Its key finder
 * for EVAL and EVALSHA reads numkeys with atoi, which takes `+2`, `02`, ` 2` and `2.0` as 2: a spelling
 * the command itself refuses still has its keys checked and routed as if it were 2.)
 */
const WHOLE_NUMBER = /^(0|-?[1-9][0-9]{0,18})$/;

/** A whole number the server reads, small enough to compare (at most 9 digits), or null. */
function integer(bytes: Uint8Array | undefined): number | null {
  if (!bytes) return null;
  const shown = text(bytes);
  return WHOLE_NUMBER.test(shown) && shown.replace('-', '').length <= 9 ? Number(shown) : null;
}

/** The keys a numkeys-style call declares, when numkeys is a count that fits the arguments. */
function declaredKeys(args: Uint8Array[]): Uint8Array[] {
  const numkeys = integer(args[0]);
  if (numkeys === null || numkeys < 0 || numkeys > args.length - 1) return [];
  return args.slice(1, 1 + numkeys);
}

/**
 * The refusal of a numkeys the server would not read as a number, or null: it is refused here, before
 * any server, rather than sent with no keys declared (it would have its keys unchecked by the
 * allow-list and, on the cluster, take no slot's turn, while the server's key finder reads it as a count).
 */
function numkeysSpelling(command: string, numkeys: Uint8Array | undefined): Refused | null {
  if (numkeys === undefined) return null;
  const shown = text(numkeys);
  if (WHOLE_NUMBER.test(shown) && sameBytes(numkeys, shown)) return null;
  const plain = /^\s*\+?0*([0-9]+)(\.0*)?\s*$/.exec(shown);
  const instead = plain ? ` (write ${Number(plain[1])})` : '';
  return bad(
    command,
    `numkeys is ${JSON.stringify(shown)}, which the server does not read as a number: write it as plain decimal digits, with no "+", leading zero, blank, point or 0x${instead}`,
  );
}

/** A refusal that names the form the console runs a command in, and what the line did instead. */
function notInForm(command: string, found: string): Refused {
  const form = FORMS[command.split(' ')[0]!]!;
  return bad(command, `the console runs it only as ${form}; ${found}`);
}

function arity(command: string, args: Uint8Array[], min: number, max: number): Refused | null {
  if (args.length >= min && args.length <= max) return null;
  const wanted = min === max ? `${min}` : `${min} to ${max}`;
  const plural = (n: number) => `${n} argument${n === 1 ? '' : 's'}`;
  return notInForm(
    command,
    `that is ${wanted === '1' ? plural(1) : `${wanted} arguments`} after the name, found ${args.length}`,
  );
}

/**
 * SET on a key other than the wire identity's: the refusal says what the key holds and the commands
 * that do write and read it (a hash → HSET, HGETALL), or where the console's keys are.
 */
function setElsewhere(key: Uint8Array): Refused {
  const shown = text(key);
  const structure = sameBytes(key, shown) ? structureOf(shown) : undefined;
  const forms = sameBytes(key, shown) ? formsFor(shown) : undefined;
  const only = `the console's one SET is SET ${versionKey()} <value> NX`;
  if (structure && forms)
    return bad(
      'SET',
      forms.write
        ? `${shown} is ${structure}: write it with ${forms.write}, read it with ${forms.read}`
        : `${shown} is ${structure}, which the console only reads: ${forms.read}`,
    );
  return bad(
    'SET',
    inNamespace(key)
      ? `${JSON.stringify(shown)} is not a key of the grammar, and ${only}; a queue's settings are the hash emq:{<queue>}:meta, written with HSET`
      : `${JSON.stringify(shown)} is outside the console's keys, which start with ${NAMESPACE}, and ${only}; a queue's settings are the hash ${grammarExample(shown, false)}, written with HSET`,
  );
}

/** Plans one line's arguments, or refuses it by name. */
export function plan(argv: Uint8Array[]): Planned | Refused {
  const typed = text(argv[0]!);
  if (!ASCII_NAME.test(typed) || !sameBytes(argv[0]!, typed))
    return notAllowed(
      typed,
      'a command name is ASCII letters, digits and punctuation; Unicode look-alikes such as ſ or ı are not letters of any command',
    );
  const name = upper(argv[0]!);
  const args = argv.slice(1);
  const planned = (
    command: string,
    keys: Uint8Array[],
    writes: boolean,
    node: Node = 'standalone',
  ): Planned => ({
    ok: true,
    command,
    argv,
    keys,
    node,
    writes,
  });

  if ((NATIVE as readonly string[]).includes(name)) {
    return (
      arity(name, args, 1, CONSOLE_CAPS.transitionArgs) ??
      numkeysSpelling(name, args[0]) ??
      planned(name, declaredKeys(args), true)
    );
  }
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
      );
    }
    const rest = args.slice(1);
    const keys = declaredKeys(rest);
    const refusal =
      arity(`SCRIPT ${sub}`, rest, 1, CONSOLE_CAPS.transitionArgs) ??
      numkeysSpelling(`SCRIPT ${sub}`, rest[0]) ??
      keysOutside(`SCRIPT ${sub}`, keys, 'namespace');
    if (refusal) return refusal;
    return { ...planned(`SCRIPT ${sub}`, keys, true), script: verb };
  }
  if (READS.includes(name)) {
    const shape: Record<string, [number, number, (a: Uint8Array[]) => Uint8Array[]]> = {
      GET: [1, 1, (a) => a],
      HGETALL: [1, 1, (a) => a],
      HGET: [2, 2, (a) => a.slice(0, 1)],
      ZRANGE: [3, 8, (a) => a.slice(0, 1)],
      ZSCORE: [2, 2, (a) => a.slice(0, 1)],
      LRANGE: [3, 3, (a) => a.slice(0, 1)],
      SMEMBERS: [1, 1, (a) => a],
      TYPE: [1, 1, (a) => a],
      EXISTS: [1, CONSOLE_CAPS.keys, (a) => a],
      TTL: [1, 1, (a) => a],
    };
    const [min, max, keysOf] = shape[name]!;
    const refusal = arity(name, args, min, max) ?? keysOutside(name, keysOf(args), 'namespace');
    return refusal ?? planned(name, keysOf(args), false);
  }
  switch (name) {
    case 'SCAN': {
      const refusal = arity(name, args, 1, 7);
      if (refusal) return refusal;
      for (let i = 1; i < args.length; i += 2) {
        const option = upper(args[i]!);
        if (!['MATCH', 'COUNT', 'TYPE'].includes(option) || !args[i + 1])
          return notInForm(name, `found ${JSON.stringify(text(args[i]!))} where an option and its value go`);
        const count = integer(args[i + 1]);
        if (option === 'COUNT' && (count === null || count < 1 || count > CONSOLE_CAPS.scanCount))
          return bad(
            name,
            `COUNT must be 1 to ${CONSOLE_CAPS.scanCount}, found ${JSON.stringify(text(args[i + 1]!))}`,
          );
      }
      return planned(name, [], false);
    }
    case 'DBSIZE':
    case 'TIME':
      return arity(name, args, 0, 0) ?? planned(name, [], false);
    case 'PING':
      return arity(name, args, 0, 1) ?? planned(name, [], false);
    case 'ECHO':
      return arity(name, args, 1, 1) ?? planned(name, [], false);
    case 'SET': {
      // One write only: the wire identity, set if absent. Every other SET is refused by that rule.
      const options = args.slice(2).map(upper);
      const stray = options.find((o) => !['NX', 'GET'].includes(o));
      if (args.length > 0 && !sameBytes(args[0]!, versionKey())) return setElsewhere(args[0]!);
      const found =
        args.length === 0
          ? 'found no arguments after SET'
          : args.length < 2
            ? 'the value is missing'
            : stray !== undefined
              ? `${JSON.stringify(stray)} is neither NX nor GET`
              : args.length > 4
                ? `found ${args.length} arguments after SET`
                : null;
      if (found) return notInForm(name, found);
      if (!options.includes('NX'))
        return bad(
          name,
          `NX is missing: the console sets ${versionKey()} only while it is absent, as in SET ${versionKey()} ${text(args[1]!)} NX`,
        );
      if (args[1]!.length > CONSOLE_CAPS.identityBytes)
        return bad(
          name,
          `the value is ${args[1]!.length} bytes; an identity has at most ${CONSOLE_CAPS.identityBytes}`,
        );
      return planned(name, [args[0]!], true);
    }
    case 'HSET':
    case 'ZADD': {
      const flags =
        name === 'ZADD'
          ? args.slice(1).findIndex((a) => !['NX', 'XX', 'GT', 'LT', 'CH'].includes(upper(a)))
          : 0;
      const pairs = args.length - 1 - Math.max(flags, 0);
      if (args.length < 3 || pairs % 2 !== 0 || pairs / 2 > CONSOLE_CAPS.pairs)
        return notInForm(
          name,
          `found ${args.length} argument${args.length === 1 ? '' : 's'} after ${name}, not a key and 1 to ${CONSOLE_CAPS.pairs} ${name === 'HSET' ? 'field value' : 'score member'} pairs`,
        );
      return keysOutside(name, args.slice(0, 1), 'grammar') ?? planned(name, args.slice(0, 1), true);
    }
    case 'DEL':
      return (
        arity(name, args, 1, CONSOLE_CAPS.keys) ??
        keysOutside(name, args, 'grammar') ??
        planned(name, args, true)
      );
    case 'CLUSTER': {
      const sub = args[0] ? upper(args[0]) : '';
      if (sub !== 'KEYSLOT')
        return notAllowed(`CLUSTER ${sub}`.trim(), 'of CLUSTER, the console runs only CLUSTER KEYSLOT key');
      return (
        arity('CLUSTER KEYSLOT', args.slice(1), 1, 1) ??
        planned('CLUSTER KEYSLOT', [args[1]!], false, 'cluster')
      );
    }
  }
  return notAllowed(name, REFUSED[name] ?? unknown(name));
}
