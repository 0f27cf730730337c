// What a Valkey 9 node says of its atomic slot migrations (CLUSTER GETSLOTMIGRATIONS), read one way by
// the atomic mode and by the clean-up after a dead run.

import type { Valkey } from 'iovalkey';

/** The states after which a migration job does nothing more. */
export const FINISHED = new Set(['success', 'failed', 'cancelled']);

/** The migration jobs `node` reports, each as its fields (name, operation EXPORT or IMPORT, state, …). */
export async function slotMigrations(node: Valkey): Promise<Array<Record<string, string>>> {
  const reply = (await node.call('CLUSTER', 'GETSLOTMIGRATIONS')) as unknown[][];
  return reply.map((flat) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = String(flat[i + 1]);
    return fields;
  });
}

/** The jobs `node` reports that have not finished. */
export async function unfinishedMigrations(node: Valkey): Promise<Array<Record<string, string>>> {
  return (await slotMigrations(node)).filter((job) => !FINISHED.has(job.state ?? ''));
}
