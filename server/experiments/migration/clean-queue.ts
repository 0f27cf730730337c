// Deleting a migration's queue wherever its keys are: on every node that holds any (the owner, and an
// importing node a failed move left keys on). First inside the server, in one call: the rows the
// queue's sets name and the sets themselves (20,000 keys listed to the site and sent back cost it
// ~100 ms of CPU); then, in batches, whatever key of the queue is left in the slot, so a key no set
// names goes too. ASKING goes before each delete so an importing node deletes keys of a slot it does
// not own yet; on the owner it changes nothing.

import type { Valkey } from 'iovalkey';
import { DROP_QUEUE } from '../../explorer/cluster-run.ts';
import { queueKeys, queuePrefix, rowBase } from '../../contract/keyspace/index.ts';

const BATCH = 2000;

/**
 * Deletes, inside `node`, the rows `queue`'s sets name and the sets (ASKING first, for an importing
 * node). A node that refuses (it does not serve the slot) is left to the batches that follow.
 */
export async function dropQueueInServer(node: Valkey, queue: string): Promise<void> {
  const keys = queueKeys(queue).map(({ key }) => key);
  await node
    .pipeline()
    .call('ASKING')
    .call('EVAL', DROP_QUEUE.source, keys.length, ...keys, rowBase(queue))
    .exec()
    .catch(() => {});
}

/** Deletes `queue`'s keys in slot `n` from each of `nodes`; answers how many are left on them all. */
export async function cleanQueueEverywhere(nodes: Valkey[], queue: string, n: number): Promise<number> {
  const prefix = queuePrefix(queue);
  const ours = async (node: Valkey) =>
    ((await node.call('CLUSTER', 'GETKEYSINSLOT', n, BATCH)) as string[]).filter((key) =>
      key.startsWith(prefix),
    );
  let left = 0;
  for (const node of nodes) {
    await dropQueueInServer(node, queue);
    for (let round = 0; round < 100; round += 1) {
      const keys = await ours(node);
      if (keys.length === 0) break;
      const answers =
        (await node
          .pipeline()
          .call('ASKING')
          .call('UNLINK', ...keys)
          .exec()) ?? [];
      const error = answers[1]?.[0];
      if (error) throw error;
    }
    left += (await ours(node)).length;
  }
  return left;
}
