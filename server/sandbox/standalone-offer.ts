// What a standalone Valkey offers the explorer, read at start rather than assumed: how many logical
// databases it has (database 0 holds the leases, each of the others is one run's keyspace). A deployer's
// own Valkey keeps its default of 16 databases more often than not; the pool is sized to what is there,
// and a server with no database to spare is refused with one line that names the setting.

import type { Valkey } from 'iovalkey';
import { MAX_KEYSPACES } from '../settings/bounds.ts';

/** The explorer cannot start on this server as it is configured; the message is one line for the log. */
export class StartRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartRefusedError';
  }
}

export interface KeyspaceOffer {
  /** The server's `databases` setting. */
  databases: number;
  /** Keyspaces the pool leases: databases 1..keyspaces. */
  keyspaces: number;
  /** How `databases` was learned: CONFIG GET, or probing SELECT when CONFIG is denied to the admin. */
  readFrom: 'CONFIG GET' | 'SELECT';
}

/** The server's `databases`, and the pool size that fits it: min(MAX_KEYSPACES, databases − 1). */
export async function readKeyspaceOffer(admin: Valkey, where: string): Promise<KeyspaceOffer> {
  let databases: number;
  let readFrom: KeyspaceOffer['readFrom'] = 'CONFIG GET';
  try {
    const [, value] = (await admin.call('CONFIG', 'GET', 'databases')) as [string, string];
    databases = Number(value);
    if (!Number.isInteger(databases)) throw new Error(`CONFIG GET databases answered ${String(value)}`);
  } catch {
    databases = await probeDatabases(admin);
    readFrom = 'SELECT';
  }
  if (databases < 2) {
    throw new StartRefusedError(
      `the Valkey at ${where} has ${databases} database (its \`databases\` setting); the explorer needs at least 2 — database 0 for the leases and one for each run — so set \`databases 25\` (or at least 2) in its configuration`,
    );
  }
  return { databases, keyspaces: Math.min(MAX_KEYSPACES, databases - 1), readFrom };
}

/**
 * The number of databases, found by SELECTing (an index past the last is refused), for an admin whom
 * CONFIG is denied. Leaves the connection in database 0, where it was.
 */
async function probeDatabases(admin: Valkey): Promise<number> {
  const exists = (db: number) =>
    admin.select(db).then(
      () => true,
      () => false,
    );
  let low = 1; // database 0 always exists
  let high = MAX_KEYSPACES + 2; // enough to know the pool is full-sized
  if (await exists(high - 1)) low = high;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await exists(middle - 1)) low = middle;
    else high = middle;
  }
  await admin.select(0);
  return low;
}

/** The start log's line: how many keyspaces the explorer has, and why that many. */
export function describeOffer(offer: KeyspaceOffer, where: string): string {
  const cap =
    offer.keyspaces < offer.databases - 1
      ? `, at most ${MAX_KEYSPACES} are used`
      : offer.keyspaces < MAX_KEYSPACES
        ? `; set \`databases ${MAX_KEYSPACES + 1}\` for ${MAX_KEYSPACES}`
        : '';
  const plural = offer.keyspaces === 1 ? 'keyspace' : 'keyspaces';
  return `keyspaces: the explorer has ${offer.keyspaces} ${plural} on ${where} (databases ${offer.databases} by ${offer.readFrom}: database 0 holds the leases${cap})`;
}
