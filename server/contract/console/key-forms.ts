// What the console lets a reader do with one key, said as the commands to type: a refusal names the
// allowed form closest to what was typed (a hash key → HSET, HGETALL), never only the rule it broke.
// Free of Node APIs.

import {
  layoutValueType,
  PREFIX,
  queueKey,
  RESERVE_BASE,
  splitQueueKey,
  versionKey,
} from '../keyspace/index.ts';

/** The example queue a suggestion uses when the typed key names none. */
const EXAMPLE_QUEUE = 'orders';

const STRUCTURE = {
  hash: 'a hash',
  zset: 'a sorted set',
  list: 'a list',
  set: 'a set',
  string: 'a string',
} as const;

/** The console's commands for each structure: how to write it (if the console does) and how to read it. */
const COMMANDS: Record<
  keyof typeof STRUCTURE,
  { write?: (key: string) => string; read: (key: string) => string }
> = {
  hash: { write: (key) => `HSET ${key} <field> <value>`, read: (key) => `HGETALL ${key}` },
  zset: { write: (key) => `ZADD ${key} <score> <member>`, read: (key) => `ZRANGE ${key} 0 -1 WITHSCORES` },
  list: { read: (key) => `LRANGE ${key} 0 -1` },
  set: { read: (key) => `SMEMBERS ${key}` },
  string: { write: () => `SET ${versionKey()} <value> NX`, read: (key) => `GET ${key}` },
};

/** What the layout keeps at a key, in words ("a hash"), or undefined for a key the layout does not place. */
export function structureOf(key: string): string | undefined {
  const kind = layoutValueType(key);
  return kind && STRUCTURE[kind];
}

/** The commands that fit a key the layout places, as "HSET … / HGETALL …", or undefined. */
export function formsFor(key: string): { write?: string; read: string } | undefined {
  const kind = layoutValueType(key);
  if (!kind) return undefined;
  const { write, read } = COMMANDS[kind];
  return { ...(write ? { write: write(key) } : {}), read: read(key) };
}

/** The queue the typed key names, when it names one; else the example queue. */
export function exampleQueue(key: string): string {
  const queue = splitQueueKey(key)?.queue;
  return queue && !/[{}\s]/.test(queue) ? queue : EXAMPLE_QUEUE;
}

/** A key of the grammar like the one typed: its queue kept, the nearest type the layout places. */
export function grammarExample(key: string, reads: boolean): string {
  const queue = exampleQueue(key);
  return queueKey(queue, reads ? 'pending' : 'meta');
}

/** The namespace the console reads (the sandbox account's keys): a queue's keys and the reserve's. */
export const NAMESPACE = `${PREFIX} or ${RESERVE_BASE}`;
