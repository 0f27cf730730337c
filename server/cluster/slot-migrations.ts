// What a Valkey 9 node says of its atomic slot migrations (CLUSTER GETSLOTMIGRATIONS), read and
// cancelled one way by the atomic mode and by the clean-up after a dead run.

import type { Valkey } from 'iovalkey';

/** The states after which a migration job does nothing more. */
export const FINISHED = new Set(['success', 'failed', 'cancelled']);

/** The migration jobs `node` reports, each as its fields (name, operation EXPORT or IMPORT, state, …). */
export async function slotMigrations(node: Valkey): Promise<Array<Record<string, string>>> {
  return ((await node.call('CLUSTER', 'GETSLOTMIGRATIONS')) as unknown[][]).map((flat) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = String(flat[i + 1]);
    return fields;
  });
}

export async function unfinishedMigrations(node: Valkey): Promise<Array<Record<string, string>>> {
  return (await slotMigrations(node)).filter((job) => !FINISHED.has(job.state ?? ''));
}

/**
 * Every unfinished migration of the nodes at `addresses` cancelled and waited for; answers a line per
 * cancel. Only the source cancels (the target answers "No migrations ongoing"); its import then fails on
 * its own ("Connection lost to source"). One that ended meanwhile answers the same: nothing to do.
 */
export async function cancelMigrations(addresses: string[], dial: (address: string) => Valkey) {
  const said: string[] = [];
  for (const address of addresses) {
    const exports = (await unfinishedMigrations(dial(address))).filter((job) => job.operation === 'EXPORT');
    if (exports.length === 0) continue;
    const states = exports.map((job) => job.state).join(', ');
    try {
      await dial(address).call('CLUSTER', 'CANCELSLOTMIGRATIONS');
      said.push(`${address}: cancelled the slot migration left in flight (${states})`);
    } catch (error) {
      if (!/No migrations ongoing/i.test((error as Error).message)) throw error;
    }
  }
  // A cancelled migration says so within 5 s.
  const deadline = Date.now() + 5000;
  for (const address of addresses) {
    while ((await unfinishedMigrations(dial(address))).length > 0) {
      if (Date.now() > deadline) throw new Error(`${address} still migrates a slot after its cancel`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return said;
}
