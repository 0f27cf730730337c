// A migration's times on the server's clock. Each phase, migration command, probe and worker claim is
// stamped as it happens (performance.now(), a monotonic clock); the answer gives every stamp as
// milliseconds since the move began — its first migration command — which is only known once that
// command goes out, after the stable phase's probes. So stamps are absolute while the run goes on and
// made relative once, at the end (a phase reached before the move reads negative).

import { channel } from 'node:diagnostics_channel';
import type { MigrationResult } from '../../contract/experiments/migration.ts';

/**
 * Each timed answer's move start and last phase, on the absolute clock, for a tool in the same process
 * (bench/reshard-sizes.ts measures how long the answer took after the move's last phase). Nothing is
 * published unless someone subscribes.
 */
export const MOVE_TIMED = channel('emq:reshard:timed');

export interface MoveTimed {
  origin: number;
  lastPhaseAt: number;
}

/** Now, on the clock every stamp of a run uses. */
export const stamp = (): number => performance.now();

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
