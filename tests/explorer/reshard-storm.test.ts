// Reshards asked for all at once cannot break the cluster (issue 16.1). 30 at once from one address, then
// 200 from eight: each is answered 200, 429 RESHARD_QUEUED (one reshard queued or running per reader) or
// 503, each refusal with retry-after (a migration waits its turn in line, one at a time in the whole
// sandbox), never 5xx otherwise; afterwards `valkey-cli --cluster check`, asked of every node, finds every
// slot covered, every node agreeing and no slot open, and route on every queue that was resharded answers
// 200 with the owner the cluster names. And the share itself (issue 25.2): while a reader's reshard is in
// line, a second from the same address is refused at once, and another address's is queued behind it and
// served after it, in the order asked (the line holds across the test process and the site's).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { useExplorer } from '../support/explorer.ts';
import { requestFrom } from '../support/from-address.ts';
import { until } from '../support/until.ts';
import { clusterClient } from '../../server/sandbox/cluster.ts';
import { MIGRATION_LOCK } from '../../server/explorer/slot-migration.ts';
import { lineKeys, RunLocks, TurnLines } from '../../server/cluster/run-lock.ts';
import { shareLock } from '../../server/explorer/reader-share.ts';

// The site's own limits (burst 30 per address): the storm is inside one reader's burst.
const explorer = useExplorer();
const QUEUES = ['orders', 'x', 'emq', 'fills', 'ça va', 'sandbox', 'q7', 'a'];

function post(address: string, name: string, body: unknown) {
  return requestFrom(address, `${explorer.site.url}/api/experiments/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** `valkey-cli --cluster check` from every node: its [OK] and [ERR] lines. */
function clusterCheck(): string[] {
  const cluster = explorer.sandbox.cluster!;
  const { username, password } = cluster.admin!;
  return cluster.seeds.map(({ host, port }) => {
    let out: string;
    try {
      out = execFileSync(
        'valkey-cli',
        [
          '--user',
          username,
          '--pass',
          password,
          '--no-auth-warning',
          '--cluster',
          'check',
          `${host}:${port}`,
        ],
        { encoding: 'utf8' },
      );
    } catch (error) {
      out = String((error as { stdout?: string }).stdout ?? error);
    }
    // eslint-disable-next-line no-control-regex
    return out.replace(/\x1b\[[0-9;]*m/g, '');
  });
}

async function storm(addresses: string[], total: number) {
  const answers = await Promise.all(
    Array.from({ length: total }, (_, i) =>
      post(addresses[i % addresses.length]!, 'reshard', { queue: QUEUES[i % QUEUES.length] }),
    ),
  );
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const body = JSON.parse(answer.body.toString());
    const key = `${answer.status} ${body.code ?? ''}`.trim();
    counts[key] = (counts[key] ?? 0) + 1;
    // The site's own locks live in the slot of the queue `sandbox` (4748): that queue is refused, at once.
    if (QUEUES[answers.indexOf(answer) % QUEUES.length] === 'sandbox') {
      assert.equal(answer.status, 400, `the lock slot's queue answered ${answer.status}: ${answer.body}`);
      assert.equal(body.field, 'queue');
      continue;
    }
    assert.ok([200, 429, 503].includes(answer.status), `answered ${answer.status}: ${answer.body}`);
    if (answer.status === 429) assert.equal(body.code, 'RESHARD_QUEUED');
    if (answer.status !== 200)
      assert.ok(Number(answer.headers['retry-after']) > 0, 'a refusal says when to retry');
    if (answer.status === 200) assert.equal(body.result.leftBehind, 0);
  }
  console.log(`${total} reshards from ${addresses.length} address(es):`, counts);
  assert.ok((counts['200'] ?? 0) > 0, 'some reshards got their turn');
  return counts;
}

async function assertClusterClean() {
  for (const report of clusterCheck()) {
    assert.match(report, /\[OK\] All nodes agree about slots configuration\./, report);
    assert.match(report, /\[OK\] All 16384 slots covered\./, report);
    assert.doesNotMatch(report, /\[ERR\]|\[WARNING\]/, report);
  }
  for (const queue of QUEUES) {
    const { status, body } = await explorer.post('route', { queue });
    assert.equal(status, 200, `route ${queue}: ${JSON.stringify(body)}`);
    assert.equal(body.result.leftBehind, 0);
  }
}

describe('reshards all at once', () => {
  it('30 at once from one address leave the cluster whole', async () => {
    const counts = await storm(['127.0.0.21'], 30);
    assert.ok((counts['429 RESHARD_QUEUED'] ?? 0) > 0, 'the reader’s others were refused');
    await assertClusterClean();
  });

  it('200 at once from eight addresses leave the cluster whole', async () => {
    await storm(
      Array.from({ length: 8 }, (_, i) => `127.0.0.${31 + i}`),
      200,
    );
    await assertClusterClean();
    assert.deepEqual(await explorer.allKeys(), []);
  });
});

describe('one reshard per reader address', () => {
  it('refuses at once a second from the same address while one is in line; another address is queued', async () => {
    const { seeds, admin } = explorer.sandbox.cluster!;
    const cluster = clusterClient(seeds, { redisOptions: admin ?? {} });
    try {
      const lines = new TurnLines(cluster);
      const [line] = lineKeys(MIGRATION_LOCK);
      const answered: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      // This test process holds the sandbox's migration turn, as another site process would.
      const holding = lines.with(MIGRATION_LOCK, () => held);
      await until('the test holds the turn', async () => (await cluster.zcard(line)) === 1, 5000, 10);
      // At the limit: the reader's one reshard is taken into the line.
      const first = post('127.0.0.61', 'reshard', { queue: 'orders' }).then(
        (a) => (answered.push('first'), a),
      );
      await until('the first in line', async () => (await cluster.zcard(line)) === 2, 5000, 10);
      // One past: a second from the same address, refused at once with retry-after.
      const started = Date.now();
      const second = await post('127.0.0.61', 'reshard', { queue: 'x' });
      const tookMs = Date.now() - started;
      assert.equal(second.status, 429, second.body.toString());
      assert.equal(JSON.parse(second.body.toString()).code, 'RESHARD_QUEUED');
      assert.equal(second.headers['retry-after'], '1');
      assert.ok(tookMs < 2000, `refused at once (${tookMs} ms), not after a wait`);
      // Another address: queued behind the first, not refused.
      const other = post('127.0.0.62', 'reshard', { queue: 'x' }).then((a) => (answered.push('other'), a));
      await until('the other address in line', async () => (await cluster.zcard(line)) === 3, 5000, 10);
      release();
      await holding;
      const [a, b] = await Promise.all([first, other]);
      assert.equal(a.status, 200, a.body.toString());
      assert.equal(b.status, 200, b.body.toString());
      assert.deepEqual(answered, ['first', 'other'], 'served in the order asked');
      // Once the first is answered, its address may ask again.
      const again = await post('127.0.0.61', 'reshard', { queue: 'x' });
      assert.equal(again.status, 200, again.body.toString());
      assert.equal(await cluster.exists(...lineKeys(MIGRATION_LOCK)), 0, 'an empty line leaves no key');
      assert.equal(await cluster.exists(RunLocks.key(shareLock('reshard', '127.0.0.61'))), 0);
    } finally {
      cluster.disconnect();
    }
  });
});
