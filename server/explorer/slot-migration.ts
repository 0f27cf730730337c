// Moving one slot as the cluster spec moves it, checked at each step, one migration at a time in the whole
// sandbox (a line kept in the cluster, in arrival order). A turn first repairs what a killed holder left,
// and a failed move is finished or undone the same way: the next reader finds one owner, nothing open.

import { catalogueText } from '../contract/catalogue/catalogue-text.ts';
import type { NodeDialer, NodeView } from '../sandbox/cluster-check.ts';
import { repairCluster, type RepairReport } from '../sandbox/cluster-repair.ts';
import { splitAddress } from '../sandbox/cluster-topology.ts';
import type { RunLocks, Turn } from '../cluster/run-lock.ts';
import { settleOwner } from '../sandbox/slot-settle.ts';
import type { AdminCredentials } from '../sandbox/valkey-process.ts';
import type { MigrationCommand, MigrationNode as ContractNode } from '../contract/experiments/migration.ts';
import { MIGRATE_TIMEOUT_MS } from '../settings/bounds.ts';

/** The lock every slot migration (and every repair) of the sandbox takes. */
export const MIGRATION_LOCK = 'migration';

type MigrationNode = Pick<ContractNode, 'id' | 'address'>;

/** What the cluster's admin side gives a migration: a connection per node, the seeds, the password. */
export interface ClusterAdmin {
  dial: NodeDialer;
  seeds: string[];
  credentials: AdminCredentials | null;
  locks: RunLocks;
  log(line: string): void;
}

/** A migration that failed part-way, saying what the repair that followed left (if it could run). */
export class MigrationFailedError extends Error {
  override name = 'MigrationFailedError';
  constructor(slot: number, cause: unknown, repair: RepairReport | null) {
    const why = cause instanceof Error ? cause.message : String(cause);
    const left = repair?.left.join('; ') ?? 'the repair could not run';
    super(
      repair?.left.length === 0
        ? catalogueText('RESHARD_FAILED', { slot, why }, 'repaired')
        : catalogueText('RESHARD_FAILED', { slot, why, 'what is left': left }, 'unrepaired'),
    );
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

/** One command of a migration as sent (`atMs` on the monotonic clock, performance.now()), and its reply. */
export type MigrationStep = Omit<MigrationCommand, 'reply'> & { reply: unknown };

/** `work` in the migration turn after a repair; a failure is repaired and thrown as MigrationFailedError. */
export async function inMigrationTurn<T>(
  admin: ClusterAdmin,
  slot: number,
  work: (turn: Turn, views: NodeView[]) => Promise<T>,
): Promise<T> {
  const repair = () => repairCluster(admin.dial, admin.seeds, admin.credentials, admin.log);
  // A line, not a lock: every process's reshards are served in the order they asked (cluster/run-lock.ts).
  return admin.locks.line.with(MIGRATION_LOCK, async (turn) => {
    // The repair's last check read every node: the move starts from those views.
    const { left, views } = await repair();
    if (left.length > 0) throw new ClusterDegradedError(left);
    // Checked before any step, so nothing is opened that a repair would have to close.
    if (views.length < 2) throw new SinglePrimaryError(slot, views[0]?.address ?? 'none');
    try {
      return await work(turn, views);
    } catch (error) {
      throw new MigrationFailedError(slot, error, await repair().catch(() => null));
    }
  });
}

export interface SlotMove {
  admin: ClusterAdmin;
  /** Checked before every command: a lost turn stops the move (the caller repairs). */
  turn: Turn;
  /** Every node, as the turn's repair read them. */
  views: NodeView[];
  slot: number;
  source: MigrationNode;
  target: MigrationNode;
  record(step: MigrationStep): void;
}

/** Keys per MIGRATE once the queue is split: 20,000 jobs in about 20 commands. */
const MIGRATE_BATCH = 1000;

/** `slot` moved a step at a time, so a caller can look between steps (`whole()` takes them all). */
export function moveSlot(move: SlotMove) {
  const { admin, turn, views, slot, source, target } = move;
  const n = String(slot);
  const stillHeld = () => {
    if (!turn.held()) throw new Error('the migration turn was lost (its lock expired); stopped');
  };
  const send = async (node: MigrationNode, shown: string[], sent: string[] = shown) => {
    stillHeld();
    const atMs = performance.now();
    const reply = await admin.dial(node.address).call(sent[0]!, ...sent.slice(1));
    move.record({ node: node.address, command: shown, reply, atMs });
    return reply;
  };
  const setSlot = async (node: MigrationNode, state: string, id: string) => {
    const reply = await send(node, ['CLUSTER', 'SETSLOT', n, state, id]);
    if (reply !== 'OK') throw new Error(`SETSLOT ${state} answered ${JSON.stringify(reply)}, not OK`);
  };
  const { host, port } = splitAddress(target.address);
  const head = ['MIGRATE', host, String(port), '', '0', String(MIGRATE_TIMEOUT_MS)];
  const { credentials } = admin;
  // The target needs the admin's password; what is shown has it masked.
  const auth = (password: string) => (credentials ? ['AUTH2', credentials.username, password] : []);
  const steps = {
    importing: () => setSlot(target, 'IMPORTING', source.id),
    /** Both sides open, before any key moves. */
    migrating: () => setSlot(source, 'MIGRATING', target.id),
    /** `keys` in one MIGRATE (a key at a time shows the slot split). */
    async migrate(keys: string[]) {
      const words = (password: string) => [...head, ...auth(password), 'KEYS', ...keys];
      await send(source, words('********'), words(credentials?.password ?? ''));
    },
    /** Every key left on the source, MIGRATE_BATCH per MIGRATE, until none is left. */
    async migrateRest() {
      const onSource = admin.dial(source.address);
      for (;;) {
        // The keys to send next are read, not recorded: the MIGRATE that follows names every one.
        const keys = (await onSource.call('CLUSTER', 'GETKEYSINSLOT', n, MIGRATE_BATCH)) as string[];
        if (keys.length === 0) return;
        await steps.migrate(keys);
      }
    },
    /** SETSLOT … NODE on every node, then every node made to agree on the target (settleOwner). */
    async owner() {
      // A key written on the source meanwhile would block the NODE step there: none may be left.
      await steps.migrateRest();
      // The target first, then the source, then the others: no moment where no node owns the slot.
      const others = views.filter((v) => v.id !== target.id && v.id !== source.id);
      for (const node of [target, source, ...others]) await setSlot(node, 'NODE', target.id);
      stillHeld();
      const everyone = views.map((view) => view.address);
      await settleOwner(admin.dial, everyone, [slot], target.id, target.address);
    },
    async whole() {
      await steps.importing();
      await steps.migrating();
      await steps.owner();
    },
  };
  return steps;
}
