// Moving one slot, the way the cluster spec moves it, checked at each step and taken in turns: one
// migration at a time across the whole sandbox (every process, every host — the turn is a line kept in
// the cluster itself, served in arrival order, each ticket renewed while it waits or holds). A turn starts by repairing whatever a previous holder left
// (a site killed mid-way), and a migration that fails is finished or undone by the same repair before
// the turn is given back, so the next reader always finds every slot with one owner and nothing open.

import { catalogueText } from '../contract/catalogue/catalogue-text.ts';
import type { NodeDialer, NodeView } from '../sandbox/cluster-check.ts';
import { migrateRest, repairCluster, type RepairReport } from '../sandbox/cluster-repair.ts';
import { splitAddress } from '../sandbox/cluster-topology.ts';
import type { RunLocks, Turn } from '../cluster/run-lock.ts';
import { settleOwner } from '../sandbox/slot-settle.ts';
import type { AdminCredentials } from '../sandbox/valkey-process.ts';
import { MIGRATE_TIMEOUT_MS, TURN_WAIT_MS } from '../settings/bounds.ts';

/** The lock every slot migration (and every repair) of the sandbox takes. */
export const MIGRATION_LOCK = 'migration';

export interface MigrationNode {
  id: string;
  address: string;
}

/** What the cluster's admin side gives a migration: a connection per node, the seeds, the password. */
export interface ClusterAdmin {
  dial: NodeDialer;
  seeds: string[];
  credentials: AdminCredentials | null;
  locks: RunLocks;
  log(line: string): void;
}

/** A migration that failed part-way; the repair that followed is in `repair`. */
export class MigrationFailedError extends Error {
  readonly repair: RepairReport | null;
  constructor(slot: number, cause: unknown, repair: RepairReport | null) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      repair && repair.left.length === 0
        ? catalogueText('RESHARD_FAILED', { slot, why }, 'repaired')
        : catalogueText(
            'RESHARD_FAILED',
            { slot, why, 'what is left': repair?.left.join('; ') ?? 'the repair could not run' },
            'unrepaired',
          ),
    );
    this.name = 'MigrationFailedError';
    this.repair = repair;
  }
}

/** A cluster of one primary: there is nowhere to move a slot to (a deployment's shape, not a fault). */
export class SinglePrimaryError extends Error {
  constructor(slot: number, node: string) {
    super(catalogueText('RESHARD_IMPOSSIBLE', { slot, node }));
    this.name = 'SinglePrimaryError';
  }
}

/** The cluster is in a state no run can be served from, and the repair could not fix it. */
export class ClusterDegradedError extends Error {
  constructor(problems: string[]) {
    super(catalogueText('SANDBOX_DEGRADED', { 'what is wrong': problems.join('; ') }));
    this.name = 'ClusterDegradedError';
  }
}

/** One command of a migration as sent, the node it went to, and the reply. */
export interface MigrationStep {
  node: string;
  command: string[];
  reply: unknown;
  /** When it was sent, on the monotonic clock (performance.now()). */
  sentAt: number;
}

/**
 * Runs `work` in the sandbox's one migration turn: before it, the cluster is checked and repaired; if
 * `work` throws, the cluster is repaired again (finishing or undoing a half-done move) before the turn
 * is given back, and the failure is rethrown as a MigrationFailedError naming what the repair did.
 */
export async function inMigrationTurn<T>(
  admin: ClusterAdmin,
  slot: number,
  work: (turn: Turn, views: NodeView[]) => Promise<T>,
  waitMs = TURN_WAIT_MS,
): Promise<T> {
  // A line, not a lock: every process's reshards are served in the order they asked (turn-line.ts).
  return admin.locks.line.with(
    MIGRATION_LOCK,
    async (turn) => {
      const before = await repairCluster(admin.dial, admin.seeds, admin.credentials, admin.log);
      if (before.left.length > 0) throw new ClusterDegradedError(before.left);
      // The repair's last check read every node: the move starts from those views.
      const { views } = before;
      // Checked before any step, so nothing is opened that a repair would have to close.
      if (views.length < 2) throw new SinglePrimaryError(slot, views[0]?.address ?? 'none');
      try {
        return await work(turn, views);
      } catch (error) {
        const repair = await repairCluster(admin.dial, admin.seeds, admin.credentials, admin.log).catch(
          () => null,
        );
        throw new MigrationFailedError(slot, error, repair);
      }
    },
    waitMs,
  );
}

export interface MoveHooks {
  /** The target IMPORTING, the source not yet MIGRATING. */
  importing?(): Promise<void>;
  /** Both sides open, before any key moves. */
  opened?(): Promise<void>;
  /** After each batch, with the keys still on the source. */
  batchMoved?(batch: string[], left: number): Promise<void>;
}

/**
 * Moves `slot` from `source` to `target`, `batches` first, then `batchSize` keys per MIGRATE, recording
 * every command; every
 * SETSLOT must answer OK and the source must end empty; then every node is made to agree on the
 * target (settleOwner). `turn` is checked between steps: a lost turn stops the move (the caller repairs).
 */
export async function moveSlot(
  admin: ClusterAdmin,
  turn: Turn,
  views: NodeView[],
  slot: number,
  source: MigrationNode,
  target: MigrationNode,
  record: (step: MigrationStep) => void,
  {
    batchSize = 1000,
    hooks = {} as MoveHooks,
    batches = [] as string[][],
  }: { batchSize?: number; hooks?: MoveHooks; batches?: string[][] } = {},
): Promise<void> {
  const run = async (node: MigrationNode, shown: string[], sent: string[] = shown) => {
    if (!turn.held()) throw new Error('the migration turn was lost (its lock expired); stopped');
    const sentAt = performance.now();
    const reply = await admin.dial(node.address).call(sent[0]!, ...sent.slice(1));
    record({ node: node.address, command: shown, reply, sentAt });
    return reply;
  };
  const expectOk = (reply: unknown, what: string) => {
    if (reply !== 'OK') throw new Error(`${what} answered ${JSON.stringify(reply)}, not OK`);
  };
  const n = String(slot);
  expectOk(await run(target, ['CLUSTER', 'SETSLOT', n, 'IMPORTING', source.id]), 'IMPORTING');
  await hooks.importing?.();
  expectOk(await run(source, ['CLUSTER', 'SETSLOT', n, 'MIGRATING', target.id]), 'MIGRATING');
  await hooks.opened?.();
  const { host, port } = splitAddress(target.address);
  const head = ['MIGRATE', host, String(port), '', '0', String(MIGRATE_TIMEOUT_MS)];
  const credentials = admin.credentials;
  // The batches asked for first (a key at a time, to show the slot split), then whatever is left.
  const planned = [...batches];
  for (;;) {
    // The keys to send next are read, not recorded: the MIGRATE that follows names every one.
    const keys =
      planned.shift() ??
      ((await admin.dial(source.address).call('CLUSTER', 'GETKEYSINSLOT', n, batchSize)) as string[]);
    if (keys.length === 0) break;
    // The target needs the admin's password; what is shown has it masked.
    const auth = credentials ? ['AUTH2', credentials.username] : [];
    await run(
      source,
      [...head, ...auth, ...(credentials ? ['********'] : []), 'KEYS', ...keys],
      [...head, ...auth, ...(credentials ? [credentials.password] : []), 'KEYS', ...keys],
    );
    const left = Number(await admin.dial(source.address).call('CLUSTER', 'COUNTKEYSINSLOT', slot));
    await hooks.batchMoved?.(keys, left);
  }
  // A key written on the source meanwhile would block the NODE step there: none may be left.
  await migrateRest(admin.dial, slot, source.address, target.address, credentials);
  const everyone = views.map((view) => view.address);
  // The target first, then the source, then the others: no moment where no node owns the slot.
  for (const node of [target, source, ...views.filter((v) => v.id !== target.id && v.id !== source.id)]) {
    expectOk(await run(node, ['CLUSTER', 'SETSLOT', n, 'NODE', target.id]), 'SETSLOT NODE');
  }
  if (!turn.held()) throw new Error('the migration turn was lost (its lock expired); stopped');
  await settleOwner(admin.dial, everyone, [slot], target.id, target.address);
}
