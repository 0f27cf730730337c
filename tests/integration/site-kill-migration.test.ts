// A site SIGKILLed in the middle of a slot migration (issue 16.3, 17.1): it was migrating a slot of an
// external cluster (VALKEY_CLUSTER_URL) with the queue split across two nodes. Afterwards its own
// valkey-server is gone (its watchdog), and the next site started on that cluster finishes or undoes
// the migration before its first run, says so in its log, and leaves every slot owned by one node in
// every node's view, nothing MIGRATING or IMPORTING, and no key of the queue lost.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { checkCluster } from '../../server/sandbox/cluster-check.ts';
import { startSite, type Site } from '../../scripts/site.ts';
import { alive, serversOf } from '../support/processes.ts';
import { useSandbox } from '../support/sandbox.ts';
import { sandboxUp } from '../support/sandbox-up.ts';
import { until } from '../support/until.ts';

const box = useSandbox({ native: false });

describe('a site killed mid-migration', () => {
  it('leaves nothing running, and the next start repairs the cluster and logs it', async () => {
    const cluster = box.sandbox.cluster!;
    const nodes = cluster.url.split(',').map((url) => new Valkey(url));
    const byAddress = new Map(cluster.seeds.map(({ host, port }, i) => [`${host}:${port}`, nodes[i]!]));
    const dial = (address: string) => byAddress.get(address)!;
    const seeds = [...byAddress.keys()];
    // Its own standalone node (VALKEY_URL empty), the test's cluster.
    const env = {
      VALKEY_URL: '',
      VALKEY_CLUSTER_URL: cluster.url,
      EXPLORER_BURST: '1000',
      EXPLORER_RATE: '1000',
    };
    let next: Site | undefined;
    try {
      const first = await startSite(env);
      await sandboxUp(first.url, 60_000);
      const ownServers = serversOf(first.pid);
      assert.equal(ownServers.length, 1, 'the first site runs its own standalone node');

      // Once the first key of the queue has reached the target (node 2: slot 105 is node 1's), the
      // target answers nobody for a moment (CLIENT PAUSE ALL, which ends by itself), so the site stops
      // at its next command there, mid-migration, and is killed: the slot open on both sides, the queue
      // split across two nodes, nobody left to finish the move.
      const target = nodes[1]!;
      const watcher = nodes[1]!.duplicate();
      void fetch(`${first.url}/api/experiments/reshard`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ queue: 'orders' }),
      }).catch(() => {});
      await until(
        'a key of the queue on the target',
        async () => Number(await watcher.call('CLUSTER', 'COUNTKEYSINSLOT', 105)) > 0,
        30_000,
        5,
      );
      await target.call('CLIENT', 'PAUSE', 1500, 'ALL');
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(first.pid, 'SIGKILL');
      watcher.disconnect();
      // The pause ends by itself; whatever the source had in flight lands.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const left = await checkCluster(dial, seeds);
      assert.deepEqual(
        left.open.map((o) => `${o.slot} ${o.state}`).sort(),
        ['105 importing', '105 migrating'],
        `the kill came mid-migration: ${left.problems.join('; ')}`,
      );
      const split = await Promise.all(
        nodes.slice(0, 2).map(async (node) => Number(await node.call('CLUSTER', 'COUNTKEYSINSLOT', 105))),
      );
      assert.ok(split[0]! > 0 && split[1]! > 0, `the queue split across both nodes: ${split}`);
      await until(
        'the killed site’s own server stopped',
        () => ownServers.every((pid) => !alive(pid)),
        15_000,
      );

      next = await startSite(env);
      const site = next;
      await sandboxUp(site.url, 60_000);
      const log = site.output();
      assert.match(log, /cluster: check at start: .*slot 105 is left (MIGRATING|IMPORTING)/);
      assert.match(log, /cluster: slot 105: finished its migration 127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+/);
      assert.match(log, /cluster: the cluster is clean again/);

      const after = await checkCluster(dial, seeds);
      assert.deepEqual(after.problems, []);
      // No key of the queue lost: every key the two sides held when the site died (its rows, its
      // pending set and whatever its worker had claimed), now all on the one owner, none elsewhere.
      const owner = after.views[0]!.owners[105]!;
      const ownerAddress = after.views.find((view) => view.id === owner)!.address;
      const counts = await Promise.all(
        after.views.map(async (view) =>
          Number(await dial(view.address).call('CLUSTER', 'COUNTKEYSINSLOT', 105)),
        ),
      );
      const onOwner = counts[after.views.findIndex((view) => view.id === owner)]!;
      assert.equal(onOwner, split[0]! + split[1]!, `keys on each node after the repair: ${counts}`);
      assert.equal(
        counts.reduce((sum, n) => sum + n, 0),
        onOwner,
        `no key of slot 105 left off its owner: ${counts}`,
      );
      for (;;) {
        const keys = (await dial(ownerAddress).call('CLUSTER', 'GETKEYSINSLOT', 105, 1000)) as string[];
        const queueKeys = keys.filter((key) => key.startsWith('emq:{orders}:'));
        if (queueKeys.length === 0) break;
        await dial(ownerAddress).del(...queueKeys);
      }
      // And the next site serves a migration of that slot again.
      const { status } = await fetch(`${site.url}/api/experiments/reshard`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ queue: 'orders' }),
      });
      assert.equal(status, 200);
    } finally {
      await next?.close();
      for (const node of nodes) node.disconnect();
    }
  });
});
