// Proof read from the server itself, not from our code: how many commands this connection has had
// served (CLIENT INFO's tot-cmds), and what its keyspace holds.

import type { Valkey } from 'iovalkey';

/** Commands this connection had served before this CLIENT INFO. */
export async function commandsServed(client: Valkey): Promise<number> {
  const info = String(await client.call('CLIENT', 'INFO'));
  const match = / tot-cmds=(\d+)/.exec(info);
  if (!match) throw new Error('CLIENT INFO did not report tot-cmds');
  return Number(match[1]);
}

/**
 * Runs `act` between two CLIENT INFO calls and says how many commands reached the server meanwhile
 * (the first CLIENT INFO itself is counted by the second, so it is taken off).
 */
export async function commandsDuring(
  client: Valkey,
  act: () => Promise<void>,
): Promise<{ before: number; after: number; reached: number }> {
  const before = await commandsServed(client);
  await act();
  const after = await commandsServed(client);
  return { before, after, reached: after - before - 1 };
}
