// reshard: what a reader sends to move a queue's slot live and back; the answer is the migration's
// (migration.ts), the same in both modes.

import type { MigrationMode, MigrationResult, MigrationSize } from './migration.ts';

/** What a reader sends: a queue (`orders`), a mode (`keys`) and a size (DEFAULT_MIGRATION_SIZE), each optional. */
export interface ReshardBody {
  queue?: string;
  mode?: MigrationMode;
  size?: MigrationSize;
}

export type ReshardResult = MigrationResult;
