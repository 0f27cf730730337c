// The commands the console runs, one row each: the one form it takes, its arity, which arguments are
// keys and what they must be, whether it writes, the targets it runs on, the ACL the explorer account
// needs for it, how its reply reads in plain words, and a line that runs it. The allow-list
// (allow-list.ts), the names a refusal lists, the explorer account's ACL
// (server/explorer/explorer-user.ts) and docs/api.md's table of the console's commands are all read
// from these rows: adding a command is a row here and its test (tests/unit/adding-a-console-command.test.ts
// tries one). Free of Node APIs.

import { hashtag, queueKey, versionKey, type FixedKeyType } from '../keyspace/index.ts';
import { CONSOLE_CAPS } from '../limits.ts';
import { CORE_TRANSITIONS, TRANSITIONS } from '../transitions.ts';
import type { WireReply } from '../wire/types.ts';
import { formsFor, grammarExample, NAMESPACE, structureOf } from './key-forms.ts';
import {
  bad,
  declaredKeys,
  inNamespace,
  integer,
  sameBytes,
  text,
  upper,
  type KeyRule,
  type Node,
  type Planned,
  type Refused,
} from './line-checks.ts';

export interface ConsoleCommand {
  /** How the names a refusal lists say it (`EMQ.*` verbs are said once, as a group). */
  says: string;
  /** The one form the console runs it in: a refusal quotes it. */
  form: string;
  /** How many arguments follow the name (the sub-command's, for SCRIPT <verb> and CLUSTER KEYSLOT). */
  arity: readonly [min: number, max: number];
  /** Its keys: every argument, the first, the ones numkeys declares, or none. */
  keys: 'all' | 'first' | 'numkeys' | 'none';
  /** What each key must be: in the namespace (a read), of the grammar (a write), or any key at all. */
  keyRule: KeyRule;
  /** The key a refusal offers instead: a fixed type of the typed key's queue, or the reserve's key. */
  exampleKey: FixedKeyType | 'version';
  writes: boolean;
  /** The targets it runs on; on another, `elsewhere` says why it does not. */
  runsOn: readonly Node[];
  elsewhere?: string;
  /** The node it is sent to whatever the target (CLUSTER KEYSLOT: a standalone Valkey 8 refuses it). */
  sentTo?: Node;
  /** What the explorer account needs to run it, as ACL rules (`+<command>`, on the keys it may name). */
  acl: readonly string[];
  /** An ACL the account holds on any key (the EMQ.* verbs, so the module's own layout check answers). */
  anyKey?: boolean;
  /** Rules beyond the arity: options, caps; `inForm` refuses a line quoting the form. */
  check?: (args: Uint8Array[], inForm: (found: string) => Refused) => Refused | null;
  /** One line of plain words for a reply whose meaning is certain from the command alone. */
  reading?: (planned: Planned, reply: WireReply) => string | undefined;
  /** A line that runs it, on each target it runs on (the test runs every one on a real server). */
  example: string;
}

const BOTH = ['standalone', 'cluster'] as const;
const STANDALONE = ['standalone'] as const;
type Required = 'says' | 'form' | 'arity' | 'acl' | 'example';
/** A row; what it leaves out is the common case: no keys, writes nothing, runs on both targets. */
function command(row: Pick<ConsoleCommand, Required> & Partial<ConsoleCommand>): ConsoleCommand {
  return { keys: 'none', keyRule: 'any', exampleKey: 'pending', writes: false, runsOn: BOTH, ...row };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const countOf = (reply: WireReply) => (typeof reply === 'number' ? reply : NaN);
const keyOf = (planned: Planned) => text(planned.keys[0]);
const WRITES_ELSEWHERE =
  'it writes, and on the cluster the console runs only what writes nothing (reads, CLUSTER KEYSLOT, PING, ECHO, TIME, and the EMQ.* verbs, which every cluster node refuses); run it on a fresh standalone keyspace instead';

function emptyReading(key: string): string {
  const structure = structureOf(key);
  return `there is no such key here${structure ? ` (Valkey removes ${structure} once it is empty)` : ''}`;
}
const noSuchKey = (planned: Planned, reply: WireReply) =>
  Array.isArray(reply) && reply.length === 0 ? emptyReading(keyOf(planned)) : undefined;
const noSuchRange = (planned: Planned, reply: WireReply) =>
  Array.isArray(reply) && reply.length === 0
    ? `nothing in that range, or ${emptyReading(keyOf(planned))}`
    : undefined;

/** A read of one key: arity, which argument is the key, the example key a refusal offers. */
function read(
  name: string,
  form: string,
  arity: readonly [number, number],
  exampleKey: ConsoleCommand['exampleKey'],
  example: string,
  reading?: ConsoleCommand['reading'],
): ConsoleCommand {
  return {
    says: name,
    form,
    arity,
    keys: name === 'EXISTS' ? 'all' : 'first',
    keyRule: 'namespace',
    exampleKey,
    writes: false,
    runsOn: BOTH,
    acl: [name.toLowerCase()],
    ...(reading ? { reading } : {}),
    example,
  };
}

function setReading(planned: Planned, reply: WireReply): string | undefined {
  const options = planned.argv.slice(3).map((a) => text(a).toUpperCase());
  const key = versionKey();
  if (options.includes('GET'))
    return reply === null
      ? `${key} was absent, so NX wrote the value; the (nil) is the old value GET returns: there was none`
      : `${key} already held this value, so NX wrote nothing`;
  return reply === null
    ? `${key} already held a value, so NX wrote nothing; GET ${key} shows it`
    : `${key} was absent and now holds ${text(planned.argv[2])}`;
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

/** One write only: the wire identity, set if absent. Every other SET is refused by that rule. */
function checkSet(args: Uint8Array[], inForm: (found: string) => Refused): Refused | null {
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
  if (found) return inForm(found);
  if (!options.includes('NX'))
    return bad(
      'SET',
      `NX is missing: the console sets ${versionKey()} only while it is absent, as in SET ${versionKey()} ${text(args[1]!)} NX`,
    );
  if (args[1]!.length > CONSOLE_CAPS.identityBytes)
    return bad(
      'SET',
      `the value is ${args[1]!.length} bytes; an identity has at most ${CONSOLE_CAPS.identityBytes}`,
    );
  return null;
}

/** HSET key field value… and ZADD key [flags] score member…: 1 to the cap of pairs. */
function checkPairs(name: 'HSET' | 'ZADD') {
  return (args: Uint8Array[], inForm: (found: string) => Refused): Refused | null => {
    const flags =
      name === 'ZADD'
        ? args.slice(1).findIndex((a) => !['NX', 'XX', 'GT', 'LT', 'CH'].includes(upper(a)))
        : 0;
    const pairs = args.length - 1 - Math.max(flags, 0);
    if (args.length >= 3 && pairs % 2 === 0 && pairs / 2 <= CONSOLE_CAPS.pairs) return null;
    return inForm(
      `found ${args.length} argument${args.length === 1 ? '' : 's'} after ${name}, not a key and 1 to ${CONSOLE_CAPS.pairs} ${name === 'HSET' ? 'field value' : 'score member'} pairs`,
    );
  };
}

function checkScan(args: Uint8Array[], inForm: (found: string) => Refused): Refused | null {
  for (let i = 1; i < args.length; i += 2) {
    const option = upper(args[i]!);
    if (!['MATCH', 'COUNT', 'TYPE'].includes(option) || !args[i + 1])
      return inForm(`found ${JSON.stringify(text(args[i]!))} where an option and its value go`);
    const count = integer(args[i + 1]);
    if (option === 'COUNT' && (count === null || count < 1 || count > CONSOLE_CAPS.scanCount))
      return bad(
        'SCAN',
        `COUNT must be 1 to ${CONSOLE_CAPS.scanCount}, found ${JSON.stringify(text(args[i + 1]!))}`,
      );
  }
  return null;
}

const ID = 'JOB0Nb1VTbfnu4';
const PENDING = queueKey('orders', 'pending');
const META = queueKey('orders', 'meta');

/** Each EMQ.* verb, a row of its own from the transition table. */
const NATIVE: Record<string, ConsoleCommand> = Object.fromEntries(
  CORE_TRANSITIONS.map((verb) => {
    const name = TRANSITIONS[verb].command;
    const row = command({
      says: `EMQ.* (the ${CORE_TRANSITIONS.length} verbs)`,
      form: `${name} numkeys key… arg…`,
      arity: [1, CONSOLE_CAPS.transitionArgs],
      keys: 'numkeys',
      writes: true,
      acl: [name.toLowerCase()],
      anyKey: true,
      example: `${name} 0`,
    });
    return [name, row];
  }),
);

export const CONSOLE_COMMANDS: Readonly<Record<string, ConsoleCommand>> = {
  ...NATIVE,
  SCRIPT: command({
    says: 'SCRIPT <verb>',
    form: `SCRIPT <${CORE_TRANSITIONS.join('|')}> numkeys key… arg…`,
    arity: [1, CONSOLE_CAPS.transitionArgs],
    keys: 'numkeys',
    keyRule: 'namespace',
    writes: true,
    runsOn: STANDALONE,
    elsewhere: WRITES_ELSEWHERE,
    // EVALSHA of the project's own script; what the script calls is granted from the scripts themselves.
    acl: ['evalsha'],
    example: `SCRIPT promote 3 ${queueKey('orders', 'schedule')} ${PENDING} ${queueKey('orders', 'job:')} 10`,
  }),
  GET: read('GET', 'GET key', [1, 1], 'version', `GET ${versionKey()}`, (_, reply) =>
    reply === null ? 'there is no such key here' : undefined,
  ),
  HGETALL: read('HGETALL', 'HGETALL key', [1, 1], 'meta', `HGETALL ${META}`, noSuchKey),
  HGET: read('HGET', 'HGET key field', [2, 2], 'meta', `HGET ${META} paused`, (_, reply) =>
    reply === null ? 'the hash has no such field, or there is no such key' : undefined,
  ),
  ZRANGE: read(
    'ZRANGE',
    'ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]',
    [3, 8],
    'pending',
    `ZRANGE ${PENDING} 0 -1`,
    noSuchRange,
  ),
  ZSCORE: read('ZSCORE', 'ZSCORE key member', [2, 2], 'pending', `ZSCORE ${PENDING} ${ID}`, (_, reply) =>
    reply === null ? 'the sorted set has no such member, or there is no such key' : undefined,
  ),
  LRANGE: read(
    'LRANGE',
    'LRANGE key start stop',
    [3, 3],
    'ring',
    `LRANGE ${queueKey('orders', 'ring')} 0 -1`,
    noSuchRange,
  ),
  SMEMBERS: read(
    'SMEMBERS',
    'SMEMBERS key',
    [1, 1],
    'paused',
    `SMEMBERS ${queueKey('orders', 'paused')}`,
    noSuchKey,
  ),
  TYPE: read('TYPE', 'TYPE key', [1, 1], 'pending', `TYPE ${PENDING}`, (_, reply) =>
    reply === 'none' ? 'there is no such key here' : undefined,
  ),
  EXISTS: read(
    'EXISTS',
    `EXISTS key… (≤${CONSOLE_CAPS.keys} keys)`,
    [1, CONSOLE_CAPS.keys],
    'pending',
    `EXISTS ${PENDING}`,
    (planned, reply) =>
      `${countOf(reply)} of the ${plural(planned.keys.length, 'key')} named exist (a key named twice counts twice)`,
  ),
  TTL: read('TTL', 'TTL key', [1, 1], 'pending', `TTL ${PENDING}`, (_, reply) =>
    reply === -1
      ? 'the key exists and never expires'
      : reply === -2
        ? 'there is no such key here'
        : undefined,
  ),
  SCAN: command({
    says: 'SCAN',
    form: `SCAN cursor [MATCH pattern] [COUNT ≤${CONSOLE_CAPS.scanCount}] [TYPE type]`,
    arity: [1, 7],
    runsOn: STANDALONE,
    elsewhere:
      'it walks a node’s whole keyspace, which on "cluster" holds other readers’ queues and the site’s own keys; name your queue’s keys (HGETALL emq:{q}:job:<id>, EXISTS emq:{q}:pending), or SCAN on "standalone", a keyspace of your own',
    acl: ['scan'],
    check: checkScan,
    example: 'SCAN 0 COUNT 10',
  }),
  DBSIZE: command({
    says: 'DBSIZE',
    form: 'DBSIZE',
    arity: [0, 0],
    runsOn: STANDALONE,
    elsewhere:
      'it counts every reader’s keys on a node of the shared cluster; run it on "standalone", a keyspace of your own',
    acl: ['dbsize'],
    reading: (_, reply) => `${plural(countOf(reply), 'key')} in this run's own keyspace`,
    example: 'DBSIZE',
  }),
  SET: command({
    says: `SET ${versionKey()} … NX`,
    form: `SET ${versionKey()} <value> NX [GET]`,
    arity: [0, Infinity],
    keys: 'first',
    keyRule: 'namespace',
    exampleKey: 'version',
    writes: true,
    runsOn: STANDALONE,
    elsewhere: WRITES_ELSEWHERE,
    acl: ['set'],
    check: checkSet,
    reading: setReading,
    example: `SET ${versionKey()} echomq:6.0.0 NX`,
  }),
  HSET: command({
    says: 'HSET',
    form: `HSET key field value (≤${CONSOLE_CAPS.pairs} pairs, a key of the grammar)`,
    arity: [0, Infinity],
    keys: 'first',
    keyRule: 'grammar',
    exampleKey: 'meta',
    writes: true,
    runsOn: STANDALONE,
    elsewhere: WRITES_ELSEWHERE,
    acl: ['hset'],
    check: checkPairs('HSET'),
    reading: (_, reply) =>
      `${plural(countOf(reply), 'new field')}; a field already there is overwritten and not counted`,
    example: `HSET ${META} paused 0`,
  }),
  ZADD: command({
    says: 'ZADD',
    form: `ZADD key [NX|XX|GT|LT|CH] score member (≤${CONSOLE_CAPS.pairs} pairs, a key of the grammar)`,
    arity: [0, Infinity],
    keys: 'first',
    keyRule: 'grammar',
    writes: true,
    runsOn: STANDALONE,
    elsewhere: WRITES_ELSEWHERE,
    acl: ['zadd'],
    check: checkPairs('ZADD'),
    reading: (_, reply) => `${plural(countOf(reply), 'new member')} (with CH, changed ones count too)`,
    example: `ZADD ${PENDING} 0 ${ID}`,
  }),
  DEL: command({
    says: 'DEL',
    form: `DEL key… (≤${CONSOLE_CAPS.keys} keys of the grammar)`,
    arity: [1, CONSOLE_CAPS.keys],
    keys: 'all',
    keyRule: 'grammar',
    writes: true,
    runsOn: STANDALONE,
    elsewhere: WRITES_ELSEWHERE,
    acl: ['del'],
    reading: (_, reply) => {
      const count = countOf(reply);
      return `${plural(count, 'key')} existed and ${count === 1 ? 'is' : 'are'} now deleted; the rest were not there`;
    },
    example: `DEL ${PENDING}`,
  }),
  'CLUSTER KEYSLOT': command({
    says: 'CLUSTER KEYSLOT',
    form: 'CLUSTER KEYSLOT key',
    arity: [1, 1],
    keys: 'all',
    // It only hashes its argument: any text is a key to it.
    sentTo: 'cluster',
    acl: ['cluster|keyslot'],
    reading: (planned) => `CRC16 of the hashed bytes "${hashtag(keyOf(planned))}", modulo 16384`,
    example: `CLUSTER KEYSLOT ${PENDING}`,
  }),
  PING: command({
    says: 'PING',
    form: 'PING [message]',
    arity: [0, 1],
    acl: ['ping'],
    example: 'PING',
  }),
  ECHO: command({
    says: 'ECHO',
    form: 'ECHO message',
    arity: [1, 1],
    acl: ['echo'],
    example: 'ECHO hello',
  }),
  TIME: command({
    says: 'TIME',
    form: 'TIME',
    arity: [0, 0],
    acl: ['time'],
    example: 'TIME',
  }),
};

/** The arguments of `row` that are keys. */
export function keysOf(row: ConsoleCommand, args: Uint8Array[]): Uint8Array[] {
  if (row.keys === 'all') return args;
  if (row.keys === 'first') return args.slice(0, 1);
  if (row.keys === 'numkeys') return declaredKeys(args);
  return [];
}

/** The row a planned line ran by: `SCRIPT CLAIM` by SCRIPT's, `CLUSTER KEYSLOT` by its own. */
export function rowOf(command: string): ConsoleCommand | undefined {
  const name = command.startsWith('SCRIPT ') ? 'SCRIPT' : command;
  return Object.hasOwn(CONSOLE_COMMANDS, name) ? CONSOLE_COMMANDS[name] : undefined;
}

/** The rows that run on `node`, in the table's order. */
function commandsOn(node: Node): Array<[string, ConsoleCommand]> {
  return Object.entries(CONSOLE_COMMANDS).filter(([, row]) => row.runsOn.includes(node));
}

/** The allowed forms on `node`, as the API's answer and the page list them (once, never per refused line). */
export function allowedForms(node: Node): string[] {
  return commandsOn(node).map(([, row]) => row.form);
}

/** The names the console runs on `node`, said with every refusal there instead of the whole list of forms. */
export function allowedNames(node: Node): string {
  return [...new Set(commandsOn(node).map(([, row]) => row.says))].join(', ');
}

/** The explorer account's ACL for the console on `node`: the key-bound commands, and those on any key. */
export function consoleAcl(node: Node): { commands: string[]; anyKey: string[] } {
  const rows = commandsOn(node).map(([, row]) => row);
  return {
    commands: [...new Set(rows.filter((row) => !row.anyKey).flatMap((row) => row.acl))],
    anyKey: [...new Set(rows.filter((row) => row.anyKey).flatMap((row) => row.acl))],
  };
}
