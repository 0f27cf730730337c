// slot: a key's or a queue's hashtag, CRC16 and slot, as computed here and as the cluster node answers
// it; for a queue, where its keys and the reserve land, and two claims, one refused with CROSSSLOT.

import type { KeyspaceErrorCode } from '../keyspace/index.ts';
import type { WireCommand, WireProof } from '../wire/types.ts';
import type { SlotCall } from './cross-slot.ts';
import type { KeyView } from './segments.ts';

/** What a reader sends: a key, or a queue (and the other queue of the CROSSSLOT claim, `fills` if left out). */
export type SlotBody = { key: string } | { queue: string; other?: string };

/** A key's view with the cluster's own CLUSTER KEYSLOT of it. */
export type ConfirmedKey = KeyView & { serverSlot: number };

export type SlotResult = { wire: WireCommand[]; proof: WireProof } & (
  | { accepted?: undefined; key: ConfirmedKey & { agree: boolean }; reserve: ConfirmedKey }
  | {
      accepted: false;
      refusal: { field: 'queue' | 'other'; code: KeyspaceErrorCode; message: string; offset: number | null };
    }
  | {
      accepted: true;
      key: ConfirmedKey & { agree: boolean };
      queueSlots: Array<{ key: string; slot: number }>;
      reserve: ConfirmedKey;
      otherSlot: number;
      singleQueue: SlotCall;
      mixedQueues: SlotCall;
    }
);
