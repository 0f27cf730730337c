// Reshards asked for all at once cannot break the cluster (issue 16.1). 30 at once from one address, then
// 200 from eight: each is answered 200 or 503 with retry-after (a migration waits its turn, one at a time
// in the whole sandbox), never 5xx otherwise; afterwards `valkey-cli --cluster check`, asked of every
// node, finds every slot covered, every node agreeing and no slot open, and route on every queue that
// was resharded answers 200 with the owner the cluster names.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { useExplorer } from '../support/explorer.ts';
import { requestFrom } from '../support/from-address.ts';

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
    const key = `${answer.status} ${body.error?.code ?? ''}`.trim();
    counts[key] = (counts[key] ?? 0) + 1;
    assert.ok([200, 503].includes(answer.status), `answered ${answer.status}: ${answer.body}`);
    if (answer.status === 503)
      assert.ok(Number(answer.headers['retry-after']) > 0, 'a 503 says when to retry');
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
    await storm(['127.0.0.21'], 30);
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
