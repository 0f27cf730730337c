// Deleting a queue's keys from a cluster node, one way for every run, migration and clean-up. A node has
// one keyspace, so a queue's keys are found by slot and prefix (GETKEYSINSLOT), each delete sent with the
// next read; a migration first drops the queue inside the server (20,000 keys listed to the site and sent
// back cost it ~100 ms of CPU). ASKING lets an importing node delete keys of a slot it does not own yet.

import { join } from 'node:path';
import type { Valkey } from 'iovalkey';
import { namespacePattern, queueKeys, queuePrefix, rowBase } from '../contract/keyspace/index.ts';
import { runScript } from '../executors/scripted.ts';
import { luaScript } from '../lua/lua-file.ts';
import { projectRoot } from '../project-root.ts';

/** A queue's rows and sets, deleted inside the server in one call. */
const DROP_QUEUE = luaScript(join(projectRoot(), 'server', 'cluster', 'lua'), 'queue-drop-n.lua');

/** Keys read (and deleted) per round; a run writes a few, a migration's rest after the drop is small. */
const BATCH = 1000;
/** Rounds at most: a node that keeps handing keys back is answered with what is left. */
const ROUNDS = 100;

/**
 * Deletes `queue`'s keys in slot `n` from `node` (`inServer`: dropped in the server first), none once
 * `inTurn` says the turn is no longer the caller's; answers how many are left there.
 */
export async function deleteQueueKeys(
  node: Valkey,
  queue: string,
  n: number,
  { inServer = false, inTurn = (): boolean => true } = {},
): Promise<number> {
  const prefix = queuePrefix(queue);
  const ours = (keys: unknown) => (keys as string[]).filter((key) => key.startsWith(prefix));
  if (inServer) {
    const keys = queueKeys(queue).map(({ key }) => key);
    // A node that refuses (it does not serve the slot) is left to the batches that follow.
    await runScript(node, DROP_QUEUE, keys, [rowBase(queue)], true).catch(() => {});
  }
  let keys = ours(await node.call('CLUSTER', 'GETKEYSINSLOT', n, BATCH));
  for (let round = 0; keys.length > 0 && round < ROUNDS; round += 1) {
    if (!inTurn()) throw new Error(`the turn of slot ${n} ended before its clean-up`);
    const answers = await node
      .pipeline()
      .call('ASKING')
      .call('UNLINK', ...keys)
      .call('CLUSTER', 'GETKEYSINSLOT', n, BATCH)
      .exec();
    const [, unlinked, read] = answers ?? [];
    const error = unlinked?.[0] ?? read?.[0];
    if (error) throw error;
    keys = ours(read?.[1] ?? []);
  }
  return keys.length;
}

/** The same on each of `nodes`, inside the server first; answers how many are left on them. */
export async function deleteQueueKeysOn(nodes: Valkey[], queue: string, n: number): Promise<number> {
  let left = 0;
  for (const node of nodes) left += await deleteQueueKeys(node, queue, n, { inServer: true });
  return left;
}

/** The queue keys (`emq:…`) `node` holds, a batch at a time as SCAN finds them (they lie on many slots). */
export async function* queueKeyBatches(node: Valkey): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', namespacePattern(), 'COUNT', BATCH);
    cursor = next;
    if (keys.length > 0) yield keys;
  } while (cursor !== '0');
}

/** Deletes every queue key `node` holds (what a dead run left), key by key; answers how many. */
export async function deleteEveryQueueKey(node: Valkey): Promise<number> {
  let removed = 0;
  for await (const keys of queueKeyBatches(node)) {
    const pipeline = node.pipeline();
    for (const key of keys) pipeline.unlink(key);
    for (const [error, gone] of (await pipeline.exec()) ?? []) if (!error) removed += Number(gone);
  }
  return removed;
}
