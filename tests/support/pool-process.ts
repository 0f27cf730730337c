// A site process's keyspace pool, as a process of its own for a test to kill: CALLERS runs take a lease
// each, over and over, holding it HOLD_MS, on a pool of SIZE databases whose leases live LEASE_MS; with
// more callers than the leases it gets, its runs wait in line and its ask stands in the shared hash.
// Run as `node tests/support/pool-process.ts`, the sandbox's admin URL and the explorer's account in
// the environment; it says "running" once a run of it holds a lease, and never stops by itself.

import { KeyspacePool } from '../../server/explorer/keyspace-pool.ts';

const env = process.env;
const leaseMs = Number(env.LEASE_MS);
const pool = new KeyspacePool(env.ADMIN_URL!, Number(env.SIZE), {
  explorer: { username: env.EXPLORER_USER!, password: env.EXPLORER_PASSWORD! },
  // A lease lives its run's deadline and the grace after it: here the whole of it is the deadline.
  deadlineMs: leaseMs - 1,
  graceMs: 1,
});
let said = false;
for (let i = 0; i < Number(env.CALLERS); i += 1) {
  void (async () => {
    for (;;) {
      await pool
        .with(1, async () => {
          if (!said) process.stdout.write('running\n');
          said = true;
          await new Promise((resolve) => setTimeout(resolve, Number(env.HOLD_MS)));
        })
        .catch(() => {}); // busy: in line again
    }
  })();
}
