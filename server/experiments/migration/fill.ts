// The queue a migration moves, written in a few server-side calls: each call runs the enqueue
// transition's own script (enqueue-2.lua, includes and all) once per job inside one EVAL, so every row
// and the pending set are exactly what enqueuing the jobs one by one writes (a test compares the two
// keyspaces), at a cost of one round trip per FILL_BATCH jobs instead of one script call per job.

import type { Valkey } from 'iovalkey';
import { scriptFor } from '../../executors/scripts.ts';
import { jobKey, mintJobId, queueKey } from '../../contract/keyspace/index.ts';

/** Jobs per EVAL: 20,000 jobs in 8 calls, each a few milliseconds of the server's time. */
export const FILL_BATCH = 2500;

/** The payload of the fill's job number `i` (counting from 1), as the enqueue transition takes it. */
export const fillPayload = (i: number): string => `{"job":${i}}`;

let wrapped: string | null = null;

/**
 * The enqueue script as a Lua function of its own KEYS and ARGV (its text unchanged inside), called for
 * each job: KEYS = pending, then each job's row; ARGV = each job's id and payload. Stops at the first
 * refusal (an error reply), else answers how many were new.
 */
export function fillScript(): string {
  if (wrapped) return wrapped;
  const { source, file } = scriptFor('enqueue');
  if (source.startsWith('#!')) throw new Error(`${file} has flags; the fill cannot wrap it`);
  wrapped = [
    'local function enqueue(KEYS, ARGV)',
    source,
    'end',
    'local added = 0',
    'for i = 2, #KEYS do',
    '  local reply = enqueue({KEYS[i], KEYS[1]}, {ARGV[2 * i - 3], ARGV[2 * i - 2]})',
    "  if type(reply) == 'table' then return reply end",
    '  added = added + reply',
    'end',
    'return added',
  ].join('\n');
  return wrapped;
}

/** EVAL's words for `jobs` ([id, payload] pairs) on `queue`. */
export function fillWords(queue: string, jobs: ReadonlyArray<readonly [string, string]>): string[] {
  return [
    'EVAL',
    fillScript(),
    String(jobs.length + 1),
    queueKey(queue, 'pending'),
    ...jobs.map(([id]) => jobKey(queue, id)),
    ...jobs.flatMap(([id, payload]) => [id, payload]),
  ];
}

/** Writes `count` jobs (payloads fillPayload(1…count)) into `queue` on `owner`; answers every id, oldest first. */
export async function fillQueue(owner: Valkey, queue: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let done = 0; done < count;) {
    const jobs: Array<[string, string]> = [];
    for (let i = 0; i < Math.min(FILL_BATCH, count - done); i += 1) {
      const id = mintJobId();
      ids.push(id);
      jobs.push([id, fillPayload(done + i + 1)]);
    }
    const [name, ...args] = fillWords(queue, jobs);
    const added = await owner.call(name!, ...args);
    if (added !== jobs.length) throw new Error(`the fill wrote ${String(added)} of ${jobs.length} jobs`);
    done += jobs.length;
  }
  return ids;
}
