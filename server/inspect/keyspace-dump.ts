// A database's whole keyspace as data — every key with its type and contents — and the comparison of
// two such dumps, with sorted-set scores from the server clock allowed to differ within a window.

import type { Valkey } from 'iovalkey';
import { layoutValueType } from '../contract/keyspace/index.ts';
import type { DumpedValue, KeyspaceDump } from '../contract/dump.ts';

export type { DumpedValue, KeyspaceDump } from '../contract/dump.ts';

/** The first SCAN of a dump without `match`: a caller may send it in a write of its own and pass on its reply. */
export const FIRST_SCAN: [string, ...string[]] = ['SCAN', '0', 'COUNT', '200'];

/**
 * Reads every key with SCAN (never KEYS), in byte order; with `match`, only the keys matching that
 * SCAN pattern. Bounded: a sandbox keyspace is small. `firstPage` is FIRST_SCAN's reply when the caller
 * sent it already (one round trip less); the dump goes on from its cursor.
 */
export async function dumpKeyspace(
  client: Valkey,
  limit = 1000,
  match?: string,
  firstPage?: unknown,
): Promise<KeyspaceDump> {
  const keys: string[] = [];
  let cursor = '0';
  let page = match === undefined ? firstPage : undefined;
  do {
    const [next, batch] = (page ??
      (match === undefined
        ? await client.scan(cursor, 'COUNT', 200)
        : await client.scan(cursor, 'MATCH', match, 'COUNT', 200))) as [string, string[]];
    page = undefined;
    keys.push(...batch);
    cursor = next;
    if (keys.length > limit) throw new Error(`more than ${limit} keys: not a sandbox keyspace`);
  } while (cursor !== '0');
  keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

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
