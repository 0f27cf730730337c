// The cluster watch raises no alarm about the site's own migrations in progress: while reshards run
// (each holding the migration turn, its slot open by design), a watch checking every 100 ms logs no
// "check found" and no "is left IMPORTING/MIGRATING"; and a slot left open with nobody holding the
// turn — what a site killed mid-move leaves — is still found, logged and repaired.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { watchCluster } from '../../server/explorer/cluster-watch.ts';
import { explorerRuntime } from '../../server/explorer/runtime.ts';
import { queueKey, slot } from '../../server/contract/keyspace/index.ts';
import { ownerOf, readShards } from '../../server/sandbox/cluster-topology.ts';
import { useApi } from '../support/api.ts';
import { until } from '../support/until.ts';

const api = useApi();
const ALARM = /check found|is left (IMPORTING|MIGRATING)/;

describe('the cluster watch', () => {
  it('is silent about the site’s own reshards in progress, and still finds a slot left open', async () => {
    const runtime = await explorerRuntime();
    const lines: string[] = [];
    const watch = await watchCluster(
      { ...runtime.migrations, log: (line) => lines.push(line) },
      { everyMs: 100 },
    );
    try {
      assert.deepEqual(lines, ['check at start: clean']);
      // Three reshards, one after another: each moves its queue's slot away and back.
      for (const queue of ['orders', 'fills', 'orders']) {
        const { status, body } = await api.post('reshard', { queue, mode: 'keys' });
        assert.equal(status, 200, JSON.stringify(body));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(
        lines.filter((line) => ALARM.test(line)),
        [],
        'no alarm while the site’s own migrations held the turn',
      );

      // Left open, nobody's turn: found and put right.
      const nodes = api.sandbox.cluster!.url.split(',').map((url) => new Valkey(url));
      try {
        const shards = await readShards(nodes[0]!);
        const n = slot(queueKey('left-open', 'pending'));
        const s = shards.indexOf(ownerOf(shards, n)!);
        const t = (s + 1) % shards.length;
        await nodes[t]!.call('CLUSTER', 'SETSLOT', n, 'IMPORTING', shards[s]!.id);
        await until(
          'the watch finds the slot left open',
          () => lines.find((line) => new RegExp(`check found: .*slot ${n} is left IMPORTING`).test(line)),
          10_000,
          50,
        );
        await until('the watch repairs it', () => lines.includes('the cluster is clean again'), 20_000, 100);
      } finally {
        nodes.forEach((node) => node.disconnect());
      }
    } finally {
      watch.stop();
    }
  });
});
