// What the island knows on the server when it renders: whether the sandbox answers and, for the slot
// experiment, the cluster node's answers for `orders` and `fills`. Bounded in time, so a page never
// waits on a sandbox that is down: it renders, says so, and the island reconnects by itself.

import { explorerRuntime } from '../../server/experiments/runtime.ts';
import { runSlot } from '../../server/experiments/slot.ts';
import type { SlotCall } from '../../server/experiments/browser-safe/cross-slot.ts';

export interface LiveState {
  sandbox: 'up' | 'down';
  native: boolean;
  /** CLUSTER KEYSLOT of emq:{orders}:pending and the two claims, as the cluster node answered */
  slot: { serverSlot: number; single: SlotCall; mixed: SlotCall } | null;
}

const WAIT_MS = 1500;
const DOWN: LiveState = { sandbox: 'down', native: false, slot: null };

async function ask(withSlot: boolean): Promise<LiveState> {
  const runtime = await explorerRuntime();
  if (!(await runtime.health())) return DOWN;
  let slot: LiveState['slot'] = null;
  if (withSlot) {
    const result = await runSlot(runtime, { queue: 'orders', other: 'fills' });
    if (result.accepted) {
      slot = { serverSlot: result.key.serverSlot, single: result.singleQueue, mixed: result.mixedQueues };
    }
  }
  return { sandbox: 'up', native: runtime.native(), slot };
}

export async function liveState(withSlot: boolean): Promise<LiveState> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      ask(withSlot),
      new Promise<LiveState>((resolve) => (timer = setTimeout(() => resolve(DOWN), WAIT_MS))),
    ]);
  } catch {
    return DOWN;
  } finally {
    clearTimeout(timer);
  }
}
