// Leases coordinated in Valkey: two site processes on one sandbox never hand one keyspace to two runs;
// a site process SIGKILLed mid-run strands nothing (its leases expire after the deadline plus the
// grace); a busy server (a long script) is a 503 SANDBOX_BUSY with retry-after, and the leases come back
// clean after it.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { IdMinter } from '../../server/contract/keyspace/index.ts';
import { startSite, type Site } from '../../scripts/site.ts';
import { holdServer } from '../support/hold-server.ts';
import { assertEachSawOnlyItsOwnJob, useExplorer } from '../support/explorer.ts';

// A short deadline and grace, so expiry is seen within the test: a lease lives at most 3 s.
const ENV = {
  EXPLORER_BURST: '1000',
  EXPLORER_RATE: '1000',
  RUN_DEADLINE_MS: '2000',
  LEASE_GRACE_MS: '1000',
};
const explorer = useExplorer(ENV);
const others: Site[] = [];
after(() => Promise.all(others.map((site) => site.close())));

async function second(): Promise<Site> {
  const site = await startSite({
    ...ENV,
    VALKEY_URL: explorer.sandbox.standalone.url,
    VALKEY_CLUSTER_URL: explorer.sandbox.cluster!.url,
  });
  others.push(site);
  return site;
}

function post(site: Site, name: string, body: unknown) {
  return fetch(`${site.url}/api/experiments/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (response) => ({
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as any,
  }));
}

/** The lease keys in database 0, read as the admin. */
async function leaseKeys(admin: Valkey): Promise<string[]> {
  return (await admin.keys('sandbox:lease:*')).sort();
}

describe('leases in Valkey', () => {
  it('two site processes, 50 concurrent runs on one queue: no run sees another, nothing left', async () => {
    const other = await second();
    const minter = new IdMinter(11);
    const ids = Array.from({ length: 50 }, () => minter.mint());
    const results = await Promise.all(
      ids.map((id, i) => post(i % 2 ? other : explorer.site, 'keys', { queue: 'orders', id })),
    );
    assertEachSawOnlyItsOwnJob(results, ids, 'orders');
    assert.deepEqual(await explorer.allKeys(), []);
  });

  it('a process killed mid-run: its leases expire, and its keyspaces are flushed before reuse', async () => {
    const doomed = await second();
    const admin = new Valkey(explorer.sandbox.standalone.url);
    try {
      const runs = Array.from({ length: 12 }, () =>
        post(doomed, 'two-executors', { steps: Array(16).fill('enqueue') }).catch(() => null),
      );
      let held: string[] = [];
      for (let i = 0; held.length === 0; i += 1) {
        assert.ok(i < 2000, 'a run took a lease');
        held = await leaseKeys(admin);
      }
      process.kill(doomed.pid, 'SIGKILL');
      await Promise.all(runs);
      for (const key of held) {
        const ttl = await admin.pttl(key);
        assert.ok(ttl <= 3000, `${key} expires within the deadline plus the grace (pttl ${ttl})`);
      }
      for (let waited = 0; (await leaseKeys(admin)).length > 0; waited += 100) {
        assert.ok(waited < 6000, `leases still held: ${(await leaseKeys(admin)).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Every keyspace can be leased again, and comes fresh: 24 concurrent runs, each with its own job.
      const again = await Promise.all(
        Array.from({ length: 24 }, (_, i) => post(explorer.site, 'keys', { queue: `q${i}` })),
      );
      for (const { status, body } of again) {
        assert.equal(status, 200, JSON.stringify(body));
        assert.equal(body.result.live.length, 2);
      }
      // Runs that cheap may reuse one keyspace and leave another the dead process wrote in untaken (it is
      // flushed when next leased): 24 long runs at once hold every keyspace, so each is taken again.
      const long = await Promise.all(
        Array.from({ length: 24 }, () =>
          post(explorer.site, 'two-executors', { steps: Array(16).fill('enqueue') }),
        ),
      );
      for (const { status, body } of long) assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(await explorer.allKeys(), []);
    } finally {
      admin.disconnect();
    }
  });

  it('a busy server: 503 SANDBOX_BUSY with retry-after, and the leases come back clean', async () => {
    const admin = new Valkey(explorer.sandbox.standalone.url);
    const blocker = new Valkey(explorer.sandbox.standalone.url);
    try {
      await admin.config('SET', 'busy-reply-threshold', '100');
      // A script that holds the server for 3 s (TIME inside a loop).
      const busy = holdServer(blocker, 3000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const answer = await post(explorer.site, 'keys', { queue: 'orders' });
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'SANDBOX_BUSY');
      assert.ok(Number(answer.retryAfter) >= 1);
      assert.doesNotMatch(JSON.stringify(answer.body), /\n\s+at /);
      await busy;
      const ok = await post(explorer.site, 'keys', { queue: 'orders' });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      // Whatever the busy runs held is back (or expires within the bound) and flushed.
      for (let waited = 0; (await leaseKeys(admin)).length > 0; waited += 100) {
        assert.ok(waited < 6000, 'leases held past the deadline plus the grace');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(await explorer.allKeys(), []);
    } finally {
      await admin.config('SET', 'busy-reply-threshold', '5000').catch(() => {});
      admin.disconnect();
      blocker.disconnect();
    }
  });
});
