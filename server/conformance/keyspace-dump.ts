// A database's whole keyspace as data — every key with its type and contents — and the comparison of
// two such dumps, with sorted-set scores from the server clock allowed to differ within a window.

import type { Valkey } from 'iovalkey';

export type DumpedValue =
  | { type: 'hash'; value: Record<string, string> }
  | { type: 'zset'; value: Array<[string, number]> }
  | { type: 'list'; value: string[] }
  | { type: 'set'; value: string[] }
  | { type: 'string'; value: string | null };

export type KeyspaceDump = Record<string, DumpedValue>;

/**
 * Reads every key with SCAN (never KEYS), in byte order; with `match`, only the keys matching that
 * SCAN pattern. Bounded: a sandbox keyspace is small.
 */
export async function dumpKeyspace(client: Valkey, limit = 1000, match?: string): Promise<KeyspaceDump> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (
      match === undefined
        ? await client.scan(cursor, 'COUNT', 200)
        : await client.scan(cursor, 'MATCH', match, 'COUNT', 200)
    ) as [string, string[]];
    keys.push(...batch);
    cursor = next;
    if (keys.length > limit) throw new Error(`more than ${limit} keys: not a sandbox keyspace`);
  } while (cursor !== '0');
  keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

  // Two pipelines, whatever the number of keys: every TYPE, then every read.
  const types = await replies(keys.reduce((p, key) => p.type(key), client.pipeline()));
  const reads = await replies(
    keys.reduce((p, key, i) => {
      const type = types[i];
      if (type === 'hash') return p.hgetall(key);
      if (type === 'zset') return p.zrange(key, 0, -1, 'WITHSCORES');
      if (type === 'list') return p.lrange(key, 0, -1);
      if (type === 'set') return p.smembers(key);
      if (type === 'string') return p.get(key);
      return p; // gone since the SCAN, or a type this dump does not read
    }, client.pipeline()),
  );
  const dump: KeyspaceDump = {};
  let read = 0;
  keys.forEach((key, i) => {
    const type = types[i];
    if (type === 'hash') dump[key] = { type, value: sortObject(reads[read++] as Record<string, string>) };
    else if (type === 'zset') dump[key] = { type, value: pairs(reads[read++] as string[]) };
    else if (type === 'list') dump[key] = { type, value: reads[read++] as string[] };
    else if (type === 'set') dump[key] = { type, value: (reads[read++] as string[]).sort() };
    else if (type === 'string') dump[key] = { type, value: reads[read++] as string | null };
  });
  return dump;
}

/** A pipeline's replies, or its first error thrown. */
async function replies(pipeline: ReturnType<Valkey['pipeline']>): Promise<unknown[]> {
  if (pipeline.length === 0) return [];
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
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
