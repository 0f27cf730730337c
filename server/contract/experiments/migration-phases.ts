// The phases of a slot migration, per mode, in the order a move goes through them: the one list the
// page shows before any run (MovePhases.astro), the names the answer's phases carry (`phases[].name`,
// the stepper's steps) and the order the server walks each mode's steps in
// (server/experiments/migration/keys-mode.ts and atomic-mode.ts, one step per row). Data only, so the
// browser can import it.

import type { MigrationMode } from './migration.ts';

export interface MigrationPhaseRow {
  /** The phase's name, as the answer gives it. */
  name: string;
  /** What the phase shows, in words, before any run. */
  shows: string;
}

export const MIGRATION_PHASES = {
  keys: [
    { name: 'stable', shows: 'one node owns the slot and serves every key of the queue' },
    { name: 'importing', shows: 'the target is IMPORTING the slot; the owner still serves it' },
    { name: 'migrating', shows: 'the owner is MIGRATING the slot too; no key has moved yet' },
    {
      name: 'split',
      shows:
        'one key has moved: a key still on the owner is served, a moved one answers ASK, a call needing both TRYAGAIN',
    },
    {
      name: 'moved',
      shows:
        'every key is on the target; the owner answers ASK. After ASKING the target serves a single-key call, and a multi-key call only when all its keys are there; otherwise it answers TRYAGAIN Multiple keys request during rehashing of slot — so the claim, whose row base is never a key, still waits',
    },
    {
      name: 'owner',
      shows: 'SETSLOT … NODE names the target the owner: it serves, the former owner answers MOVED',
    },
    { name: 'back', shows: 'the slot is moved back the same way, and every node names one owner again' },
  ],
  atomic: [
    { name: 'stable', shows: 'one node owns the slot and serves every key of the queue' },
    { name: 'moving', shows: 'CLUSTER MIGRATESLOTS copies the slot while the owner keeps serving it' },
    {
      name: 'owner',
      shows: 'the target owns the slot and every key at once; the former owner answers MOVED',
    },
    { name: 'back', shows: 'the slot is moved back the same way' },
  ],
} as const satisfies Record<MigrationMode, readonly MigrationPhaseRow[]>;

/** The name of one of `mode`'s phases. */
export type MigrationPhaseName<M extends MigrationMode> = (typeof MIGRATION_PHASES)[M][number]['name'];
