// What the explorer's server island renders with: whether the sandbox answers and, for the parts that show
// the slot, the cluster node's answers for `orders` and `fills` (server/api/island.ts reads them).

import type { SlotCall } from './experiments/cross-slot.ts';

export interface SandboxState {
  sandbox: 'up' | 'down' | 'degraded';
  native: boolean;
  /** What the cluster check found and could not repair; empty unless `degraded`. */
  problems: string[];
}

export interface LiveState extends SandboxState {
  /** CLUSTER KEYSLOT of emq:{orders}:pending and the two claims, as the cluster node answered */
  slot: { serverSlot: number; single: SlotCall; mixed: SlotCall } | null;
}
