// A replica caught up with its primary: what the native replication tests check after every verb.

import assert from 'node:assert/strict';
import type { Valkey } from 'iovalkey';

/** The same keys on both servers, and each key's value the same (DEBUG DIGEST-VALUE). */
export async function sameKeys(main: Valkey, copy: Valkey, what: string): Promise<void> {
  const [ours, theirs] = await Promise.all([main.keys('*'), copy.keys('*')]);
  assert.deepEqual(theirs.sort(), ours.sort(), `${what}: the replica holds other keys`);
  for (const key of ours) {
    const [a, b] = await Promise.all([
      main.call('DEBUG', 'DIGEST-VALUE', key),
      copy.call('DEBUG', 'DIGEST-VALUE', key),
    ]);
    assert.deepEqual(b, a, `${what}: the replica's ${key} differs`);
  }
}

/** Waits until the replica has applied everything the primary sent, then compares them key by key. */
export async function converged(main: Valkey, copy: Valkey, what: string): Promise<void> {
  await main.call('WAIT', 1, 5000);
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const [a, b] = await Promise.all([main.call('DEBUG', 'DIGEST'), copy.call('DEBUG', 'DIGEST')]);
    if (a === b) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await sameKeys(main, copy, what);
}

/** The replica's command counts since the last call, less the tests' own reads
 * (the comparison above sends KEYS, DEBUG and INFO). */
export async function received(copy: Valkey): Promise<Record<string, number>> {
  const stats = String(await copy.info('commandstats'));
  await copy.call('CONFIG', 'RESETSTAT');
  const calls: Record<string, number> = {};
  for (const [, name, count] of stats.matchAll(/cmdstat_([A-Za-z.|-]+):calls=(\d+)/g)) {
    const command = name!.toLowerCase();
    if (!['info', 'config|resetstat', 'debug', 'replconf', 'keys'].includes(command))
      calls[command] = Number(count);
  }
  return calls;
}
