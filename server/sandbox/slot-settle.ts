// Giving a slot to one node so that it stays given. `CLUSTER SETSLOT <slot> NODE <id>` changes only the
// view of the node it is sent to; the nodes then keep gossiping, and a node believes the claim that
// carries the higher config epoch. Valkey bumps the new owner's epoch when it closes an import — but only
// when that node does not already think its epoch the greatest, and a node that took a slot a moment ago
// may not have heard yet of the epoch the previous owner bumped to. Its claim then carries the lower
// epoch: any late heartbeat or UPDATE from the previous owner turns some views back, and the new owner's
// own claims never win them again (the nodes disagree for good). So after the NODE step the owner's
// epoch is raised above every other node's (CLUSTER BUMPEPOCH, once it has heard of them), and the slot
// is done only when every node has named that owner, with nothing open, several reads in a row. No
// fixed sleep anywhere: each wait polls what the nodes report, a few milliseconds apart, bounded by
// the settle's deadline, so a slot that settles at once costs a few round trips and nothing more.

import { checkCluster, type NodeDialer } from './cluster-check.ts';
import { SLOT_SETTLE_MS } from '../settings/bounds.ts';

export interface SettleOptions {
  /** How long the whole settling may take. */
  timeoutMs?: number;
  /** Consecutive clean reads, `pollMs` apart, that count as stable. */
  stableReads?: number;
  pollMs?: number;
}

/** How often a settle reads the nodes again: quick, since each read is one round trip per node. */
export const SETTLE_POLL_MS = 5;
/** Clean reads in a row that count as agreed (what gossip in flight would turn back shows by then). */
export const SETTLE_STABLE_READS = 3;

export class SettleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettleError';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each node's own config epoch (CLUSTER INFO's cluster_my_epoch). */
async function epochs(dial: NodeDialer, addresses: string[]): Promise<Map<string, number>> {
  const read = await Promise.all(
    addresses.map(async (address) => {
      const info = String(await dial(address).call('CLUSTER', 'INFO'));
      return [address, Number(/cluster_my_epoch:(\d+)/.exec(info)?.[1] ?? 0)] as const;
    }),
  );
  return new Map(read);
}

/**
 * Raises `owner`'s config epoch above every other node's. BUMPEPOCH answers STILL while the owner
 * believes itself the greatest already (it has not heard of a higher one yet, or two share the top):
 * then wait for gossip and ask again.
 */
export async function raiseEpoch(
  dial: NodeDialer,
  owner: string,
  everyone: string[],
  deadline: number,
): Promise<{ epoch: number; bumps: number }> {
  for (let bumps = 0; ;) {
    const known = await epochs(dial, everyone);
    const mine = known.get(owner) ?? 0;
    if ([...known].every(([address, epoch]) => address === owner || epoch < mine))
      return { epoch: mine, bumps };
    if (Date.now() > deadline)
      throw new SettleError(
        `${owner} could not get the greatest config epoch (${JSON.stringify([...known])})`,
      );
    const reply = String(await dial(owner).call('CLUSTER', 'BUMPEPOCH'));
    if (reply.startsWith('BUMPED')) bumps += 1;
    else await sleep(SETTLE_POLL_MS);
  }
}

/** Waits until every node names `ownerId` for every one of `slots` with none open, `stableReads` times in a row. */
export async function waitAgreement(
  dial: NodeDialer,
  everyone: string[],
  slots: number[],
  ownerOf: (slot: number) => string,
  deadline: number,
  { stableReads = SETTLE_STABLE_READS, pollMs = SETTLE_POLL_MS }: SettleOptions = {},
): Promise<void> {
  let clean = 0;
  let last = '';
  for (;;) {
    const check = await checkCluster(dial, everyone);
    const wrong = slots.filter(
      (s) =>
        check.views.length < everyone.length ||
        check.views.some((view) => view.owners[s] !== ownerOf(s)) ||
        check.open.some((o) => o.slot === s),
    );
    clean = wrong.length === 0 ? clean + 1 : 0;
    if (clean >= stableReads) return;
    last = wrong.length === 0 ? last : `slots ${wrong.slice(0, 5).join(', ')}: ${check.problems.join('; ')}`;
    if (Date.now() > deadline) throw new SettleError(`the nodes did not agree in time (${last})`);
    await sleep(pollMs);
  }
}

/**
 * Makes `ownerId` (at `ownerAddress`) the owner of `slots` in every node's view, for good: SETSLOT NODE
 * on the owner first (the spec's order: no moment where nobody owns the slot), then on every other node;
 * the owner's epoch raised above all; every node read back until stable. Returns the owner's epoch.
 */
export async function settleOwner(
  dial: NodeDialer,
  everyone: string[],
  slots: number[],
  ownerId: string,
  ownerAddress: string,
  options: SettleOptions = {},
): Promise<{ epoch: number; bumps: number }> {
  const deadline = Date.now() + (options.timeoutMs ?? SLOT_SETTLE_MS);
  const order = [ownerAddress, ...everyone.filter((address) => address !== ownerAddress)];
  for (const address of order) {
    const node = dial(address);
    await Promise.all(slots.map((s) => node.call('CLUSTER', 'SETSLOT', s, 'NODE', ownerId)));
  }
  const raised = await raiseEpoch(dial, ownerAddress, everyone, deadline);
  // Another SETSLOT round after the bump: a view a late claim turned back in between is put right.
  for (const address of order) {
    const node = dial(address);
    await Promise.all(slots.map((s) => node.call('CLUSTER', 'SETSLOT', s, 'NODE', ownerId)));
  }
  await waitAgreement(dial, everyone, slots, () => ownerId, deadline, options);
  return raised;
}
