// MIGRATE … KEYS from one cluster node to another, as a hand-driven slot move sends it (the tests of a
// slot that moves and bench/claim-give-up.ts): copy off, replace off, a 5 s timeout, and the cluster
// admin's credentials (AUTH2) when the target asks for them.

import type { Valkey } from 'iovalkey';

/** Sends `keys` from `source` to `target` with MIGRATE … KEYS (as `admin`, when given). */
export function migrateKeys(
  source: Valkey,
  target: Valkey,
  keys: string[],
  admin?: { username: string; password: string },
): Promise<unknown> {
  const auth = admin ? ['AUTH2', admin.username, admin.password] : [];
  const { host, port } = target.options;
  return source.call('MIGRATE', host!, String(port), '', '0', '5000', ...auth, 'KEYS', ...keys);
}
