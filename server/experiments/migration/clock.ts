// A migration's times on the server's clock: every stamp is taken as it happens and made relative to the
// move's start once, at the end, because the start (its first migration command) is only known once that
// command goes out, after the stable phase's probes (which then read negative).

import { channel } from 'node:diagnostics_channel';
import type { MigrationResult } from '../../contract/experiments/migration.ts';

/** Each answer's move start and last phase, absolute, for bench/reshard-sizes.ts in the same process. */
export const MOVE_TIMED = channel('emq:reshard:timed');

export type MoveTimed = { origin: number; lastPhaseAt: number };

/** Now, on the clock every stamp of a run uses. */
export const stamp = (): number => performance.now();

/** Waits `ms` (a poll's pause between two reads). */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds to a tenth: enough for a time axis, and keeps the order of the stamps. */
export const tenths = (ms: number): number => Math.round(ms * 10) / 10;

type Timed = Pick<MigrationResult, 'phases'> & Partial<Pick<MigrationResult, 'worker'>>;

/** Rewrites every absolute stamp of `result` as milliseconds since `origin` (the move's first command). */
export function sinceMoveStart<T extends Timed>(result: T, origin: number): T {
  if (MOVE_TIMED.hasSubscribers)
    MOVE_TIMED.publish({ origin, lastPhaseAt: result.phases.at(-1)?.atMs ?? origin } satisfies MoveTimed);
  const shift = (at: number | undefined) => tenths((at ?? origin) - origin);
  for (const phase of result.phases) {
    phase.atMs = shift(phase.atMs);
    for (const step of phase.steps) step.atMs = shift(step.atMs);
    for (const probe of phase.probes) probe.atMs = shift(probe.atMs);
  }
  for (const claim of result.worker?.claims ?? []) claim.atMs = shift(claim.atMs);
  return result;
}
