// The slot experiment's two claims on the cluster node: one queue's keys (one slot, accepted), and the
// same claim with its second key taken from another queue (refused with CROSSSLOT). The server runs
// them; the page shows the same keys and slots before the node answers.

import { callFor } from '../calls.ts';
import type { Call } from '../transitions.ts';
import { slot } from '../keyspace/index.ts';

/** A claim's keys with each key's slot, and the node's reply or refusal once it answered. */
export interface SlotCall {
  keys: string[];
  slots: number[];
  reply?: unknown;
  error?: string;
}

export function crossSlotClaims(queue: string, other: string): { single: Call; mixed: Call } {
  const single = callFor('claim', queue, { lease_ms: 1000 });
  const foreign = callFor('claim', other, { lease_ms: 1000 }).keys[1]!;
  return { single, mixed: { ...single, keys: [single.keys[0]!, foreign, single.keys[2]!] } };
}

/** A call's keys and their slots, before any node answers. */
export function slotsOf(call: Call): SlotCall {
  return { keys: call.keys, slots: call.keys.map((key) => slot(key)) };
}
