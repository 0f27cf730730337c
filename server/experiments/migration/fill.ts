// The queue a migration moves, written in a few server-side calls: each EVAL runs the enqueue
// transition's own script once per job, so the keyspace is exactly what enqueuing one by one writes (a
// test compares the two) at one round trip per FILL_BATCH jobs. The ids go as one word of fixed-width ids
// and each row's key is made in the server from the row base (20,000 jobs: 0.7 MB of words, not 1.6 MB).

import type { Valkey } from 'iovalkey';
import { scriptFor } from '../../executors/scripts.ts';
import { ID_LENGTH } from '../../contract/keyspace/branded-id.ts';
import { mintJobId, queueKey, rowBase } from '../../contract/keyspace/index.ts';

/** Jobs per EVAL: 20,000 jobs in 8 calls, each a few milliseconds of the server's time. */
const FILL_BATCH = 2500;

/** The payload of the fill's job number `i` (counting from 1), as the enqueue transition takes it. */
export const fillPayload = (i: number): string => `{"job":${i}}`;

/**
 * The enqueue script as a Lua function (its text unchanged), called per job: KEYS = pending; ARGV = the
 * row base, the ids end to end (ID_LENGTH bytes each), then the payloads. A row is the row base and its
 * id, as the grammar's jobKey makes it. Stops at the first refusal, else answers how many were new.
 */
function fillScript(): string {
  const { source, file } = scriptFor('enqueue');
  if (source.startsWith('#!')) throw new Error(`${file} has flags; the fill cannot wrap it`);
  return [
    'local function enqueue(KEYS, ARGV)',
    source,
    'end',
    'local base, ids, added = ARGV[1], ARGV[2], 0',
    'for i = 1, #ARGV - 2 do',
    `  local id = string.sub(ids, ${ID_LENGTH} * i - ${ID_LENGTH - 1}, ${ID_LENGTH} * i)`,
    '  local reply = enqueue({base .. id, KEYS[1]}, {id, ARGV[i + 2]})',
    "  if type(reply) == 'table' then return reply end",
    '  added = added + reply',
    'end',
    'return added',
  ].join('\n');
}

/** EVAL's words for `jobs` ([id, payload] pairs) on `queue`; every id is ID_LENGTH bytes, as a branded id is. */
export function fillWords(queue: string, jobs: ReadonlyArray<readonly [string, string]>): string[] {
  const ids = jobs.map(([id]) => id).join('');
  // Every id ID_LENGTH characters, and all of them ASCII: ID_LENGTH bytes each.
  const odd = jobs.find(([id]) => id.length !== ID_LENGTH);
  if (odd || Buffer.byteLength(ids) !== ids.length)
    throw new Error(
      `the fill takes branded ids (${ID_LENGTH} ASCII bytes each), not ${JSON.stringify(odd?.[0] ?? ids)}`,
    );
  const payloads = jobs.map(([, payload]) => payload);
  return ['EVAL', fillScript(), '1', queueKey(queue, 'pending'), rowBase(queue), ids, ...payloads];
}

/** Writes `count` jobs (payloads fillPayload(1…count)) into `queue` on `owner`; answers every id, oldest first. */
export async function fillQueue(owner: Valkey, queue: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => mintJobId());
  for (let done = 0; done < count; done += FILL_BATCH) {
    const jobs = ids.slice(done, done + FILL_BATCH).map((id, i) => [id, fillPayload(done + i + 1)] as const);
    const [name, ...args] = fillWords(queue, jobs);
    const added = await owner.call(name!, ...args);
    if (added !== jobs.length) throw new Error(`the fill wrote ${String(added)} of ${jobs.length} jobs`);
  }
  return ids;
}
