// What both ways of moving a slot start from, and how each answers: the nodes named as the node map
// names them (node 1, 2, … in the order of their first slot), the slot's owner as the source and the
// node after it as the target; the answer is that plan as the page reads it beside what the run saw.

import type { MigrationNode, MigrationResult } from '../../contract/experiments/migration.ts';

export interface MovePlan {
  queue: string;
  slot: number;
  nodes: MigrationNode[];
  source: MigrationNode;
  target: MigrationNode;
}

/** The plan for moving `queue`'s slot off `ownerId`; `inSlotOrder` lists the nodes by their first slot. */
export function planMove(
  queue: string,
  slot: number,
  inSlotOrder: ReadonlyArray<{ address: string; id: string }>,
  ownerId: string,
): MovePlan {
  const nodes = inSlotOrder.map(({ address, id }, i) => ({ name: `node ${i + 1}`, address, id }));
  const at = nodes.findIndex((node) => node.id === ownerId);
  if (at < 0) throw new Error(`the owner of slot ${slot} (${ownerId}) is not among the nodes`);
  return { queue, slot, nodes, source: nodes[at]!, target: nodes[(at + 1) % nodes.length]! };
}

/** The answer of a run that followed `plan`: its nodes by name, source and target by address. */
export function migrationAnswer<Seen extends Partial<MigrationResult>>(
  plan: MovePlan,
  seen: Seen,
): Seen & Pick<MigrationResult, 'queue' | 'slot' | 'nodes' | 'source' | 'target'> {
  const { queue, slot, nodes, source, target } = plan;
  return { ...seen, queue, slot, nodes, source: source.address, target: target.address };
}
