// reshard: the reader's queue's slot moved live to another node, phase by phase, with probes showing
// what each node answers meanwhile (server/experiments/migration/, one file per mode: keys-mode.ts and
// atomic-mode.ts). The input names the queue and, optionally, how the slot is moved (`mode`); the
// answer's shape is the same for every mode (contract/experiments/migration.ts). One migration at a time
// in the whole sandbox: the run takes the migration turn (repairing whatever a killed run left first),
// then its queue's slot. The atomic mode runs on the second cluster, of Valkey 9.1, one run at a time
// there. Both turns are lines served in arrival order, and a reader has one reshard queued or running at
// a time.

import { queueSlot, slot } from '../contract/keyspace/index.ts';
import { inMigrationTurn, MIGRATION_LOCK } from '../explorer/slot-migration.ts';
import {
  DEFAULT_MIGRATION_SIZE,
  MIGRATION_MODES,
  MIGRATION_SIZES,
  type MigrationMode,
  type MigrationResult,
  type MigrationSize,
} from '../contract/experiments/migration.ts';
import { fields, InputError, numberOneOf, oneOf, queueName } from '../input/fields.ts';
import { RunLocks } from '../cluster/run-lock.ts';
import { inReaderShare } from '../explorer/reader-share.ts';
import { runKeysMigration, type MigrationGrant } from './migration/keys-mode.ts';
import { runAtomicReshard } from './migration/atomic-mode.ts';

export interface ReshardInput {
  queue: string;
  mode: MigrationMode;
  /** How many jobs the queue holds when its slot moves (both modes move the same). */
  size: MigrationSize;
}

export type { MigrationResult as ReshardResult } from '../contract/experiments/migration.ts';

export function parseReshardInput(body: unknown): ReshardInput {
  const input = fields(body ?? {}, ['queue', 'mode', 'size']);
  const queue = queueName(input, 'queue', 'orders');
  // The site's own locks (the migration turn among them) live in one slot of each cluster. Moving that
  // slot would move the lock of the very move under way, and list the site's keys beside the reader's:
  // a queue there is refused, whatever its name, before anything is sent.
  const own = slot(RunLocks.key(MIGRATION_LOCK));
  const at = queueSlot(queue);
  if (at === own)
    throw new InputError(
      'queue',
      `${JSON.stringify(queue)} lives in slot ${own}, where the site keeps its own locks; a reshard of that slot would move them mid-run. Any queue whose slot is not ${own} can be moved (e.g. orders)`,
    );
  return {
    queue,
    mode: oneOf(input, 'mode', MIGRATION_MODES, 'keys'),
    size: numberOneOf(input, 'size', MIGRATION_SIZES, DEFAULT_MIGRATION_SIZE),
  };
}

export function runReshard(grant: MigrationGrant, input: ReshardInput): Promise<MigrationResult> {
  // One reshard queued or running per reader, whichever mode and site process (reader-share.ts).
  return inReaderShare(grant.migration.cluster.locks, 'reshard', () => reshardInTurn(grant, input));
}

async function reshardInTurn(grant: MigrationGrant, input: ReshardInput): Promise<MigrationResult> {
  // The atomic mode runs on the Valkey 9.1 cluster, which has its own runtime and takes its own turns;
  // while that cluster is being built, starting or cannot start, `atomic()` says so (a 503).
  if (input.mode === 'atomic') return runAtomicReshard(await grant.migration.atomic(), input);
  const n = queueSlot(input.queue);
  return inMigrationTurn(grant.migration.cluster, n, (turn, views) =>
    runKeysMigration(grant, input.queue, input.size, turn, views),
  );
}
