// Deleting a migration's queue wherever its keys are: on every node that holds any (the owner, and an
// importing node a failed move left keys on), in batches. ASKING goes before each delete so an
// importing node deletes keys of a slot it does not own yet; on the owner it changes nothing.

import type { Valkey } from 'iovalkey';
import { queuePrefix } from '../../explorer/cluster-run.ts';

const BATCH = 2000;

/** Deletes `queue`'s keys in slot `n` from each of `nodes`; answers how many are left on them all. */
export async function cleanQueueEverywhere(nodes: Valkey[], queue: string, n: number): Promise<number> {
  const prefix = queuePrefix(queue);
  const ours = async (node: Valkey) =>
    ((await node.call('CLUSTER', 'GETKEYSINSLOT', n, BATCH)) as string[]).filter((key) =>
      key.startsWith(prefix),
    );
  let left = 0;
  for (const node of nodes) {
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
