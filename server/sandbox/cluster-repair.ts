// Puts a cluster right after a migration that did not finish (a site killed mid-way, a step that
// failed) or a slot map the nodes disagree about. What `valkey-cli --cluster fix` would do, decided from
// every node's view: a slot left open is finished when the target already holds keys of it (the rest
// are MIGRATEd over, so no key is lost) or undone when it holds none; a slot the views give to different
// owners, or to none, is given to the node that holds its keys or claims it itself. Each fix ends with
// settleOwner, so every node agrees and the owner's epoch wins later gossip. The caller holds the
// migration turn: nobody else is moving a slot meanwhile.

import {
  addressOf,
  agreedOwner,
  checkCluster,
  describeSlots,
  type ClusterCheck,
  type NodeDialer,
  type NodeView,
} from './cluster-check.ts';
import { splitAddress } from './cluster-topology.ts';
import { settleOwner } from './slot-settle.ts';
import type { AdminCredentials } from './valkey-process.ts';
import { MIGRATE_TIMEOUT_MS } from '../settings/bounds.ts';

export interface RepairReport {
  /** What was wrong before, in words (empty: nothing to do). */
  found: string[];
  /** What was done, one line per fix. */
  repaired: string[];
  /** What is still wrong afterwards (empty when the cluster is clean). */
  left: string[];
  /** Every node's view as the last check read it (after the fixes, when there were any). */
  views: NodeView[];
}

const BATCH = 100;

/** Moves every key of `slot` still on `source` to `target` (which must accept them: IMPORTING or owner). */
export async function migrateRest(
  dial: NodeDialer,
  slot: number,
  source: string,
  target: string,
  credentials: AdminCredentials | null,
): Promise<number> {
  const { host, port } = splitAddress(target);
  const auth = credentials ? ['AUTH2', credentials.username, credentials.password] : [];
  let moved = 0;
  for (;;) {
    const keys = (await dial(source).call('CLUSTER', 'GETKEYSINSLOT', slot, BATCH)) as string[];
    if (keys.length === 0) return moved;
    await dial(source).call('MIGRATE', host, port, '', 0, MIGRATE_TIMEOUT_MS, ...auth, 'KEYS', ...keys);
    moved += keys.length;
  }
}

async function keysIn(dial: NodeDialer, address: string, slot: number): Promise<number> {
  return Number(await dial(address).call('CLUSTER', 'COUNTKEYSINSLOT', slot));
}

/** Finishes or undoes the migration of `slot`, whose open states are `opens` (from every view). */
async function closeOpenSlot(
  dial: NodeDialer,
  check: ClusterCheck,
  slot: number,
  credentials: AdminCredentials | null,
): Promise<string> {
  const everyone = check.views.map((view) => view.address);
  const opens = check.open.filter((o) => o.slot === slot);
  const byId = (id: string) => addressOf(check.views, id);
  const migrating = opens.find((o) => o.state === 'migrating');
  const importing = opens.find((o) => o.state === 'importing');
  // Source and target from whichever side still says so.
  const source = migrating?.node ?? (importing ? byId(importing.peer) : null);
  const target = importing?.node ?? (migrating ? byId(migrating.peer) : null);
  if (!source || !target) throw new Error(`slot ${slot}: cannot tell both sides of its migration`);
  const idOf = (address: string) => check.views.find((view) => view.address === address)!.id;
  const onTarget = await keysIn(dial, target, slot);
  const onSource = await keysIn(dial, source, slot);
  if (onTarget > 0 || (onSource === 0 && agreedOwner(check.views, slot) === idOf(target))) {
    // Keys already on the target: finish, the rest over first.
    if (!importing) await dial(target).call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', idOf(source));
    const moved = await migrateRest(dial, slot, source, target, credentials);
    await settleOwner(dial, everyone, [slot], idOf(target), target);
    return `slot ${slot}: finished its migration ${source} -> ${target} (${moved} keys moved over, ${onTarget} there already); every node names ${target}`;
  }
  // Nothing on the target yet: undo, the slot stays where its keys are.
  for (const o of opens) await dial(o.node).call('CLUSTER', 'SETSLOT', slot, 'STABLE');
  await settleOwner(dial, everyone, [slot], idOf(source), source);
  return `slot ${slot}: undid its migration ${source} -> ${target} (${onSource} keys stay on ${source}); every node names ${source}`;
}

/** The node a slot the views disagree about (or leave unowned) should belong to. */
async function rightfulOwner(dial: NodeDialer, views: NodeView[], slot: number): Promise<NodeView> {
  const withKeys: NodeView[] = [];
  for (const view of views) if ((await keysIn(dial, view.address, slot)) > 0) withKeys.push(view);
  if (withKeys.length === 1) return withKeys[0]!;
  const claimants = views.filter((view) => view.owners[slot] === view.id);
  if (claimants.length === 1) return claimants[0]!;
  // Several claim it, or none: the one most views name, then the highest epoch.
  const votes = (view: NodeView) => views.filter((v) => v.owners[slot] === view.id).length;
  const pool = claimants.length > 0 ? claimants : views;
  return [...pool].sort((a, b) => votes(b) - votes(a) || b.configEpoch - a.configEpoch)[0]!;
}

/** Checks the cluster and fixes what it finds; logs each fix through `log`. */
export async function repairCluster(
  dial: NodeDialer,
  seeds: string[],
  credentials: AdminCredentials | null,
  log: (line: string) => void = () => {},
): Promise<RepairReport> {
  const before = await checkCluster(dial, seeds);
  const report: RepairReport = { found: before.problems, repaired: [], left: [], views: before.views };
  if (before.problems.length === 0) return report;
  if (before.unreachable.length > 0) {
    // A node down is its supervisor's to bring back; moving its slots now would fight it.
    report.left = before.problems;
    return report;
  }
  const everyone = before.views.map((view) => view.address);
  for (const slot of [...new Set(before.open.map((o) => o.slot))]) {
    const line = await closeOpenSlot(dial, before, slot, credentials);
    report.repaired.push(line);
    log(line);
  }
  const mid = await checkCluster(dial, everyone);
  const broken = [...new Set([...mid.uncovered, ...mid.disagreements])];
  const byOwner = new Map<NodeView, number[]>();
  for (const slot of broken) {
    const owner = await rightfulOwner(dial, mid.views, slot);
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), slot]);
  }
  for (const [owner, slots] of byOwner) {
    await settleOwner(dial, everyone, slots, owner.id, owner.address);
    const line = `slots ${describeSlots(slots)}: every node now names ${owner.address} (they disagreed or named none)`;
    report.repaired.push(line);
    log(line);
  }
  const after = await checkCluster(dial, everyone);
  report.left = after.problems;
  report.views = after.views;
  return report;
}
