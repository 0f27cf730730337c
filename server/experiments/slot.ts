// slot: a queue name or any key → its hashtag, CRC16 and slot, computed here and confirmed by the
// cluster node's CLUSTER KEYSLOT; where the queue's keys and the reserve land among the 16,384 slots;
// and a live claim whose keys mix two queues, which the cluster refuses with CROSSSLOT.

import { ScriptedExecutor } from '../executors/scripted.ts';
import { settle, WireError } from '../executors/wire-error.ts';
import {
  KeyspaceError,
  queueKey,
  queueKeys,
  queueSlot,
  slot,
  validQueue,
  versionKey,
} from '../contract/keyspace/index.ts';
import { fields, InputError, text } from '../input/fields.ts';
import { LIMITS } from '../contract/limits.ts';
import type { Cluster } from 'iovalkey';
import type { Grant } from '../explorer/grants.ts';
import { clusterWireDuring, withOwnCluster } from '../wire/cluster-wire.ts';
import { crossSlotClaims, slotsOf, type SlotCall } from '../contract/experiments/cross-slot.ts';
import { viewKey } from '../contract/experiments/segments.ts';

export type SlotInput = { key: string } | { queue: string; other: string };

export function parseSlotInput(body: unknown): SlotInput {
  const input = fields(body, ['key', 'queue', 'other']);
  const key = text(input, 'key', LIMITS.keyBytes, true);
  const queue = text(input, 'queue', LIMITS.queueBytes, true);
  if ((key === undefined) === (queue === undefined)) {
    throw new InputError(
      'body',
      'give either "key" (any key) or "queue" (a queue name), not both and not neither',
    );
  }
  if (key !== undefined) {
    if (input.other !== undefined) throw new InputError('other', 'goes with "queue", not with "key"');
    return { key };
  }
  return { queue: queue!, other: text(input, 'other', LIMITS.queueBytes, true) ?? 'fills' };
}

async function serverSlot(cluster: Cluster, key: string): Promise<number> {
  return Number(await cluster.call('CLUSTER', 'KEYSLOT', key));
}

async function attempt(run: () => Promise<unknown>): Promise<{ reply: unknown } | { error: string }> {
  const reply = await settle(run);
  return reply instanceof WireError ? { error: reply.message } : { reply };
}

/** The run on a cluster client of its own, with the commands each node received and their proof. */
export async function runSlot(grant: Grant<'cluster' | 'slotTurn'>, input: SlotInput) {
  return withOwnCluster(grant.cluster, async (cluster) => {
    let result: Awaited<ReturnType<typeof slotOn>> | undefined;
    const { wire, proof } = await clusterWireDuring(cluster, async () => {
      result = await slotOn(grant, cluster, input);
    });
    return { ...result!, wire, proof };
  });
}

async function slotOn(grant: Grant<'slotTurn'>, cluster: Cluster, input: SlotInput) {
  const reserveSlot = serverSlot(cluster, versionKey());
  if ('key' in input) {
    const view = viewKey(input.key);
    const [reserved, confirmed] = await Promise.all([reserveSlot, serverSlot(cluster, input.key)]);
    return {
      key: { ...view, serverSlot: confirmed, agree: confirmed === view.slot },
      reserve: { ...viewKey(versionKey()), serverSlot: reserved },
    };
  }
  const reserve = { ...viewKey(versionKey()), serverSlot: await reserveSlot };

  for (const [field, name] of [
    ['queue', input.queue],
    ['other', input.other],
  ] as const) {
    try {
      validQueue(name);
    } catch (error) {
      if (error instanceof KeyspaceError)
        return {
          accepted: false as const,
          refusal: { field, code: error.code, message: error.message, offset: error.offset ?? null },
        };
      throw error;
    }
  }
  const view = viewKey(queueKey(input.queue, 'pending'));
  const confirmed = await serverSlot(cluster, view.key);
  const queueSlots = queueKeys(input.queue).map(({ key }) => ({ key, slot: slot(key) }));

  // Both calls run on the cluster as claims of an empty queue: they write nothing either way. The
  // queue's slot is held meanwhile, so the claim cannot take a job another reader's run put there.
  const executor = new ScriptedExecutor(cluster);
  const { single, mixed } = crossSlotClaims(input.queue, input.other);
  const [singleOutcome, mixedOutcome] = await grant.slotTurn(view.slot, async () => [
    await attempt(() => executor.run(single)),
    await attempt(() => executor.run(mixed)),
  ]);
  return {
    accepted: true as const,
    key: { ...view, serverSlot: confirmed, agree: confirmed === view.slot },
    queueSlots,
    reserve,
    otherSlot: queueSlot(input.other),
    singleQueue: { ...slotsOf(single), ...singleOutcome } as SlotCall,
    mixedQueues: { ...slotsOf(mixed), ...mixedOutcome } as SlotCall,
  };
}
