// keys: a queue name (and optionally a job id) → every key of the queue, split into segments, read back
// from a live keyspace after a real enqueue; or the admission refusal, with the server's own count of
// the commands that reached it (none).

import { Jobs } from '../executors/jobs.ts';
import { ScriptedExecutor } from '../executors/scripted.ts';
import { WireError } from '../executors/wire-error.ts';
import {
  jobKey,
  KeyspaceError,
  mintJobId,
  queueKeys,
  rowBase,
  versionKey,
} from '../contract/keyspace/index.ts';
import { dumpCommand, dumpInServer, dumpOfReply } from '../inspect/keyspace-dump.ts';
import { fields, text, type Body } from '../input/fields.ts';
import { LIMITS } from '../contract/limits.ts';
import { wireDuring } from '../wire/recorder.ts';
import type { Grant } from '../explorer/grants.ts';
import { viewKey, type KeyView } from '../contract/experiments/segments.ts';
import type { KeysRefusal } from '../contract/experiments/keys.ts';

export interface KeysInput {
  queue: string;
  id: string | undefined;
}

export function parseKeysInput(body: unknown): KeysInput {
  const input: Body = fields(body, ['queue', 'id']);
  return { queue: text(input, 'queue', LIMITS.queueBytes), id: text(input, 'id', LIMITS.idBytes, true) };
}

export async function runKeys(grant: Grant<'lease'>, { queue, id }: KeysInput) {
  return grant.lease(1, async ([lease]) => {
    const jobs = new Jobs(new ScriptedExecutor(lease!.client));
    const jobId = id ?? mintJobId();
    // Assigned inside the callback below, which the compiler's narrowing cannot see.
    let refusal = null as KeysRefusal | null;
    const enqueue = async () => {
      try {
        await jobs.enqueue(queue, jobId, 'hello from the explorer');
      } catch (error) {
        if (error instanceof KeyspaceError) {
          refusal = { by: 'host', code: error.code, message: error.message, offset: error.offset ?? null };
        } else if (error instanceof WireError) {
          refusal = { by: 'server', code: error.errorClass, message: error.message, offset: null };
        } else {
          throw error;
        }
      }
    };
    // The dump, done inside the server, goes in the closing CLIENT INFO's write: no round trip of its own.
    const { wire, proof, read } = await wireDuring(lease!.client, enqueue, dumpCommand());
    if (refusal) return { queue, accepted: false as const, refusal, wire, proof };

    const keys: Array<KeyView & { type: string }> = queueKeys(queue).map(({ type, key }) => ({
      type,
      ...viewKey(key),
    }));
    const row = { type: 'job row', ...viewKey(jobKey(queue, jobId)) };
    // Its script not loaded (the server restarted): loaded through the admin, and read again.
    if (read instanceof Error && !read.message.startsWith('NOSCRIPT')) throw read;
    const live = read instanceof Error ? await dumpInServer(lease!.client) : dumpOfReply(read);
    return {
      queue,
      accepted: true as const,
      id: jobId,
      keys: [...keys, row],
      rowBase: { type: 'row base', ...viewKey(rowBase(queue)) },
      reserve: { type: 'reserve', ...viewKey(versionKey()) },
      /** What the server holds after the enqueue: the keys the grammar built, nothing else. */
      live: Object.entries(live).map(([key, { type, value }]) => ({ key, type, value })),
      /** The commands the enqueue sent, with the server's proof of them. */
      wire,
      proof,
    };
  });
}
