// A database's whole keyspace as data — every key with its type and contents — and the comparison of
// two such dumps, with sorted-set scores from the server clock allowed to differ within a window.

import { join } from 'node:path';
import { Cluster, type Valkey } from 'iovalkey';
import { layoutValueType } from '../contract/keyspace/index.ts';
import type { DumpedValue, KeyspaceDump } from '../contract/dump.ts';
import { runScript, scriptLoaderOf } from '../executors/scripted.ts';
import { luaScript } from '../lua/lua-file.ts';
import { projectRoot } from '../project-root.ts';

export type { DumpedValue, KeyspaceDump } from '../contract/dump.ts';

/**
 * The dump done inside the server, in one call (lua/keyspace-dump-0.lua): what a run's connection to
 * its own database reads its keyspace with. Loaded by the admin, as the transitions' scripts are.
 */
export const DUMP_SCRIPT = luaScript(join(projectRoot(), 'server', 'inspect', 'lua'), 'keyspace-dump-0.lua');

/** The in-server dump's command, e.g. to send in a write of the caller's own; its reply goes to `dumpOfReply`. */
export function dumpCommand(limit = 1000, match = ''): [string, ...string[]] {
  return ['EVALSHA', DUMP_SCRIPT.sha, '0', String(limit), match];
}

/** How many commands the in-server dump ran, from its reply (the server counts them on the caller). */
export function dumpCalls(reply: unknown): number | null {
  return Array.isArray(reply) && typeof reply[0] === 'number' ? reply[0] : null;
}

/** The in-server dump's reply as a dump; its refusal (a command refused, too many keys) thrown. */
export function dumpOfReply(reply: unknown): KeyspaceDump {
  const flat = reply as [number, ...unknown[]];
  if (flat[1] === 'error' && flat.length === 3) throw new Error(String(flat[2]));
  const found: Array<[string, DumpedValue]> = [];
  for (let i = 1; i + 2 < flat.length; i += 3) {
    const key = flat[i] as string;
    const type = flat[i + 1] as DumpedValue['type'];
    const value = flat[i + 2];
    const shape = READERS[type].shape;
    const dumped = type === 'hash' ? shape(Object.fromEntries(pairsOf(value as string[]))) : shape(value);
    found.push([key, dumped]);
  }
  return Object.fromEntries(inByteOrder(found, ([key]) => key));
}

/** `items` in the byte order of their keys (Valkey's own), each key's bytes made once, not per comparison. */
function inByteOrder<T>(items: T[], keyOf: (item: T) => string): T[] {
  return items
    .map((item) => ({ item, bytes: Buffer.from(keyOf(item)) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ item }) => item);
}

/** Connections on which the in-server dump cannot run (no admin loads its script there). */
const noScript = new WeakSet<object>();

/**
 * The keyspace of `client`'s database, read inside the server in one round trip. A cluster client, or a
 * connection whose server lacks the script and has no admin to load it, is read over the wire instead
 * (`dumpKeyspace`): the dump is the same.
 */
export async function dumpInServer(client: Valkey, limit = 1000, match?: string): Promise<KeyspaceDump> {
  if (client instanceof Cluster || noScript.has(client)) return dumpKeyspace(client, limit, match);
  try {
    return dumpOfReply(await runScript(client, DUMP_SCRIPT, [], [String(limit), match ?? '']));
  } catch (error) {
    // Not loaded, and no admin to load it (the connection itself may not): read over the wire.
    if (!/NOSCRIPT|NOPERM/.test(String(error)) || scriptLoaderOf(client)) throw error;
    noScript.add(client);
    return dumpKeyspace(client, limit, match);
  }
}

/**
 * Reads every key with SCAN (never KEYS), in byte order; with `match`, only the keys matching that
 * SCAN pattern. Bounded: a sandbox keyspace is small.
 */
export async function dumpKeyspace(client: Valkey, limit = 1000, match?: string): Promise<KeyspaceDump> {
  const scanned: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (
      match === undefined
        ? await client.scan(cursor, 'COUNT', 200)
        : await client.scan(cursor, 'MATCH', match, 'COUNT', 200)
    ) as [string, string[]];
    scanned.push(...batch);
    cursor = next;
    if (scanned.length > limit) throw new Error(`more than ${limit} keys: not a sandbox keyspace`);
  } while (cursor !== '0');
  const keys = inByteOrder(scanned, (key) => key);

  // Each key's TYPE goes out with the read its place in the layout calls for, in one pipeline; a key
  // the layout does not place, or whose TYPE says otherwise, is read in a second.
  const guesses = keys.map(layoutValueType);
  const first = client.pipeline();
  const typeAt: number[] = [];
  const readAt: Array<number | null> = [];
  keys.forEach((key, i) => {
    typeAt.push(first.length);
    first.type(key);
    const reader = readerOf(guesses[i]);
    reader?.send(first, key);
    readAt.push(reader ? first.length - 1 : null);
  });
  const answers = keys.length === 0 ? [] : (((await first.exec()) ?? []) as Array<[Error | null, unknown]>);
  const types = typeAt.map((index) => settledOf(answers[index]!));
  const values = new Map<number, unknown>();
  const second = client.pipeline();
  const again: number[] = [];
  keys.forEach((key, i) => {
    const guessed = readAt[i] ?? null;
    if (guessed !== null && types[i] === guesses[i]) {
      values.set(i, settledOf(answers[guessed]!));
      return;
    }
    const reader = readerOf(types[i]);
    if (!reader) return;
    reader.send(second, key);
    again.push(i);
  });
  (await replies(second)).forEach((value, n) => values.set(again[n]!, value));

  const dump: KeyspaceDump = {};
  keys.forEach((key, i) => {
    const reader = readerOf(types[i]);
    // Gone since the SCAN, or a type this dump does not read: not in the dump.
    if (reader && values.has(i)) dump[key] = reader.shape(values.get(i));
  });
  return dump;
}

type Pipeline = ReturnType<Valkey['pipeline']>;

/** How a type the dump reads is asked for, and what its reply becomes in the dump. */
interface Reader {
  send(p: Pipeline, key: string): void;
  shape(reply: unknown): DumpedValue;
}

const READERS: Record<DumpedValue['type'], Reader> = {
  hash: {
    send: (p, key) => void p.hgetall(key),
    shape: (reply) => ({ type: 'hash', value: sortObject(reply as Record<string, string>) }),
  },
  zset: {
    send: (p, key) => void p.zrange(key, 0, -1, 'WITHSCORES'),
    shape: (reply) => ({ type: 'zset', value: pairs(reply as string[]) }),
  },
  list: {
    send: (p, key) => void p.lrange(key, 0, -1),
    shape: (reply) => ({ type: 'list', value: reply as string[] }),
  },
  set: {
    send: (p, key) => void p.smembers(key),
    shape: (reply) => ({ type: 'set', value: (reply as string[]).sort() }),
  },
  string: {
    send: (p, key) => void p.get(key),
    shape: (reply) => ({ type: 'string', value: reply as string | null }),
  },
};

function readerOf(type: unknown): Reader | null {
  return typeof type === 'string' && Object.hasOwn(READERS, type)
    ? READERS[type as DumpedValue['type']]
    : null;
}

/** A reply, or its error thrown. */
function settledOf([error, value]: [Error | null, unknown]): unknown {
  if (error) throw error;
  return value;
}

/** A pipeline's replies, or its first error thrown. */
async function replies(pipeline: Pipeline): Promise<unknown[]> {
  if (pipeline.length === 0) return [];
  return ((await pipeline.exec()) ?? []).map((answer) => settledOf(answer as [Error | null, unknown]));
}

function sortObject(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function pairsOf(flat: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

function pairs(flat: string[]): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, Number(flat[i + 1])]);
  return out;
}

/** How far a sorted-set member's scores may differ: one window for all, or one per key and member. */
export type ScoreWindow = number | ((key: string, member: string) => number);

/**
 * The differences between two dumps, as sentences; empty when they are equal. Scores may differ by at
 * most `scoreWindowMs` — the time the step that wrote them took — since each side reads its own server
 * clock.
 */
export function compareKeyspaces(
  left: KeyspaceDump,
  right: KeyspaceDump,
  scoreWindowMs: ScoreWindow = 0,
): string[] {
  const windowFor = typeof scoreWindowMs === 'number' ? () => scoreWindowMs : scoreWindowMs;
  const differences: string[] = [];
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of [...keys].sort()) {
    const a = left[key];
    const b = right[key];
    if (!a || !b) {
      differences.push(`${key}: only on the ${a ? 'left' : 'right'}`);
    } else if (a.type !== b.type) {
      differences.push(`${key}: type ${a.type} vs ${b.type}`);
    } else if (a.type === 'zset' && b.type === 'zset') {
      const members = (entries: Array<[string, number]>) => entries.map(([member]) => member).sort();
      if (JSON.stringify(members(a.value)) !== JSON.stringify(members(b.value))) {
        differences.push(`${key}: members ${JSON.stringify(a.value)} vs ${JSON.stringify(b.value)}`);
        continue;
      }
      const scores = new Map(b.value);
      for (const [member, score] of a.value) {
        const other = scores.get(member)!;
        const window = windowFor(key, member);
        if (Math.abs(score - other) > window) {
          differences.push(`${key}: ${member} scores ${score} vs ${other} (window ${window} ms)`);
        }
      }
    } else if (JSON.stringify(a.value) !== JSON.stringify(b.value)) {
      differences.push(`${key}: ${JSON.stringify(a.value)} vs ${JSON.stringify(b.value)}`);
    }
  }
  return differences;
}
