// What the explorer's server island shows when it renders: whether the sandbox answers and, for the
// parts that show the slot, the cluster node's answers for `orders` and `fills`. The island asks
// through the same run as the API (runExperiment: the run deadline, then `classify`), so only the
// sandbox's own outage reads as "down", a bug is logged like any API run's, and no run is left going
// after the island has given up on it. A down sandbox is told at once (its health check is a ping
// bounded at a second), so a page never waits on it. A cluster the watch could not repair reads as
// "degraded", with its problems: standalone runs still work, and the cluster parts say what is wrong. Astro's server build imports this file from
// server/ rather than copying it (astro.config.mjs): the island and the API share this process's runtime.

import { classified, runExperiment, sandboxState } from './api.ts';
import { EXPERIMENTS } from './registry.ts';
import type { LiveState } from '../contract/live-state.ts';
import type { SlotResult } from '../contract/experiments/slot.ts';

const DOWN: LiveState = { sandbox: 'down', native: false, problems: [], slot: null };
const SLOT_EXAMPLE = { queue: 'orders', other: 'fills' };

export async function liveState(withSlot: boolean): Promise<LiveState> {
  const state = await sandboxState();
  if (state.sandbox === 'down') return DOWN;
  if (state.sandbox === 'degraded') return { ...state, slot: null };
  const up: LiveState = { ...state, slot: null };
  if (!withSlot) return up;
  const slot = EXPERIMENTS.slot!;
  try {
    const result = (await runExperiment(slot, slot.parse(SLOT_EXAMPLE))) as SlotResult;
    if (!result.accepted) return up;
    return {
      ...up,
      slot: { serverSlot: result.key.serverSlot, single: result.singleQueue, mixed: result.mixedQueues },
    };
  } catch (error) {
    return classified('the island’s slot run', error).code === 'SANDBOX_DOWN' ? DOWN : up;
  }
}
