// A replica caught up with its primary: what the native replication tests check after every verb.

import assert from 'node:assert/strict';
import type { Valkey } from 'iovalkey';

/** Waits until the replica has applied everything the primary sent, then compares their digests. */
export async function converged(main: Valkey, copy: Valkey, what: string): Promise<void> {
  await main.call('WAIT', 1, 5000);
  const deadline = Date.now() + 5000;
  for (;;) {
    const [a, b] = await Promise.all([main.call('DEBUG', 'DIGEST'), copy.call('DEBUG', 'DIGEST')]);
    if (a === b) return;
    if (Date.now() > deadline) assert.equal(b, a, `${what}: the replica's dataset differs`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
