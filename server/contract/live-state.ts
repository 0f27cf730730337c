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

/** How the server answers the island: server/api/island.ts's liveState, the same run as the API's. */
export type LiveStateSource = (withSlot: boolean) => Promise<LiveState>;

let source: LiveStateSource | undefined;

/**
 * The server hands the island its source once, before it serves (server/serve.ts), so that the page
 * depends on this room alone and the run behind the answer stays the server's. Astro's server build
 * loads server/ from source (astro.config.mjs), so the island reads this very module, not a copy.
 */
export function provideLiveState(given: LiveStateSource): void {
  source = given;
}

/** What the island renders with; only a site that server/serve.ts started can answer it. */
export function askLiveState(withSlot: boolean): Promise<LiveState> {
  if (!source) throw new Error('the island has no live state: server/serve.ts provides it before serving');
  return source(withSlot);
}
