// The site as it is deployed for many readers: Debian's nginx (with docs/nginx-site.conf, the example
// the deployment guide gives) balancing two hosts — two site processes on 127.0.0.2 and 127.0.0.3, each
// WORKERS=2, TRUST_PROXY naming the proxy — on a deployer's own Valkey: a default-config standalone
// (16 databases) and a cluster made by `valkey-cli --cluster create`. Readers come from addresses of
// their own (127.0.0.x); nginx forwards each one's address.

import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Valkey } from 'iovalkey';
import { startSite, type Site } from '../../scripts/site.ts';
import { startDeployerValkey, type DeployerValkey } from '../support/deployer-valkey.ts';
import { requestFrom, type Answer } from '../support/from-address.ts';
import { mixedRun, type MixedRun } from '../support/mixed-runs.ts';
import { startNginx, type Nginx } from '../support/nginx.ts';
import { boundedTeardown } from '../support/teardown.ts';

const HOSTS = ['127.0.0.2', '127.0.0.3'] as const;
/** The proxy's address as the sites see it (nginx reaches the loopback hosts from 127.0.0.1). */
const PROXY = '127.0.0.1';
const RUNS = 300;
const READER_ADDRESSES = Array.from({ length: 20 }, (_, i) => `127.0.0.${10 + i}`);
/**
 * Per address, per host: 60 runs at once, then 2 a second. With WORKERS=2 each process takes half,
 * so one address may start at most 4 × 30 runs at once across the deployment. Each reader address
 * sends 15 runs (and a retry for each BUSY), inside that wherever nginx sends them; the flooder sends
 * 200, well past it.
 */
const BURST = 60;
const RATE = 2;
const FLOOD = 200;

let valkey: DeployerValkey | undefined;
let sites: Site[] = [];
let nginx: Nginx | undefined;

before(async () => {
  valkey = await startDeployerValkey();
  sites = await Promise.all(
    HOSTS.map((host) =>
      startSite({
        HOST: host,
        WORKERS: '2',
        TRUST_PROXY: PROXY,
        VALKEY_URL: valkey!.standaloneUrl,
        VALKEY_CLUSTER_URL: valkey!.clusterUrl,
        EXPLORER_BURST: String(BURST),
        EXPLORER_RATE: String(RATE),
      }),
    ),
  );
  nginx = await startNginx(sites.map((site) => new URL(site.url).host) as [string, string]);
  // Both hosts' sandboxes up, asked through the proxy (each host in turn answers).
  for (let ups = 0, tries = 0; ups < 4; tries += 1) {
    const answer = await requestFrom('127.0.0.9', `${nginx.url}/api/sandbox`);
    ups = answer.status === 200 && JSON.parse(String(answer.body)).sandbox === 'up' ? ups + 1 : 0;
    if (tries > 300)
      throw new Error(`the sandbox never came up behind nginx: ${answer.status} ${answer.body}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

after(() =>
  boundedTeardown(async () => {
    await nginx?.stop();
    await Promise.all(sites.map((site) => site.close()));
    await valkey?.stop();
  }),
);

function decoded(answer: Answer): Buffer {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(answer.body);
  if (encoding === 'gzip') return gunzipSync(answer.body);
  return answer.body;
}

function post(from: string, name: string, body: unknown, headers: Record<string, string> = {}) {
  return requestFrom(from, `${nginx!.url}/api/experiments/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-encoding': 'br, gzip', ...headers },
    body: JSON.stringify(body),
  });
}

/** Every key on every server, read as the admin: the standalone's 16 databases and each cluster node. */
async function keysLeft(): Promise<string[]> {
  const keys: string[] = [];
  for (const [i, url] of valkey!.nodeUrls.entries()) {
    const admin = new Valkey(url, { maxRetriesPerRequest: 1 });
    for (let db = 0; db < (i === 0 ? 16 : 1); db += 1) {
      if (i === 0) await admin.select(db);
      keys.push(...(await admin.keys('*')).map((key) => `${new URL(url).port}/${db}: ${key}`));
    }
    admin.disconnect();
  }
  return keys;
}

describe('two hosts behind nginx, on a deployer’s Valkey', () => {
  it(`${RUNS} concurrent mixed runs from ${READER_ADDRESSES.length} addresses: no 5xx, each run right and only its own, nothing left behind`, async (t) => {
    const started = performance.now();
    const runs = Array.from({ length: RUNS }, (_, i) => mixedRun(i));
    let busy = 0;
    // 300 at once on 15 keyspaces: on a loaded machine a run may wait past the pool's 5 s and be told
    // 503 BUSY with a retry-after. That answer is the designed back-pressure, not a failure: the reader
    // tries again when told (counted and printed). Every other 5xx fails the test.
    const served = async (run: MixedRun, from: string): Promise<Answer> => {
      for (let attempt = 1; ; attempt += 1) {
        const answer = await post(from, run.kind, run.body);
        const retryAfter = Number(answer.headers['retry-after']);
        const isBusy = answer.status === 503 && JSON.parse(String(decoded(answer))).code === 'BUSY';
        if (!isBusy || attempt === 8) return answer;
        assert.ok(retryAfter > 0, 'a BUSY answer says when to try again');
        busy += 1;
        await new Promise((r) => setTimeout(r, Math.min(retryAfter, 3) * 1000));
      }
    };
    const answers = await Promise.all(
      runs.map((run, i) => served(run, READER_ADDRESSES[i % READER_ADDRESSES.length]!)),
    );
    const seconds = (performance.now() - started) / 1000;
    const statuses = new Map<string, number>();
    const wrong: string[] = [];
    for (const [i, answer] of answers.entries()) {
      const body = JSON.parse(String(decoded(answer)));
      const key = `${answer.status}${body.code ? ' ' + body.code : ''}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (answer.status !== 200)
        wrong.push(`run ${i} (${runs[i]!.kind}): ${answer.status} ${body.code}: ${body.detail}`);
      else {
        const problem = runs[i]!.check(body.result);
        if (problem) wrong.push(`run ${i} (${runs[i]!.kind}): ${problem}`);
      }
    }
    t.diagnostic(
      `${RUNS} runs in ${seconds.toFixed(1)} s through nginx: ${[...statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}; ${busy} answers 503 BUSY (retried)`,
    );
    assert.equal(
      [...statuses.keys()].filter((s) => s.startsWith('5')).length,
      0,
      `5xx answers: ${wrong.join('\n')}`,
    );
    assert.deepEqual(wrong, [], 'every run answered 200 with only its own keys');

    // Leases are given back and queues cleaned before each answer; a moment's grace for the last.
    let left = await keysLeft();
    for (let i = 0; left.length > 0 && i < 50; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      left = await keysLeft();
    }
    assert.deepEqual(left, [], 'no lease key, no queue key, no lock key left on any server');
  });

  it('limits each reader by the address nginx forwards: a flooder gets 429 (forged headers or not), a neighbour is served', async (t) => {
    const flooder = '127.0.0.50';
    // Cheap requests (an empty input: 400 once past the limiter), half of them claiming other addresses.
    // In waves of 40 at once: nginx holds one address to 64 open connections (limit_conn).
    const flood: Answer[] = [];
    const started = performance.now();
    for (let wave = 0; wave < FLOOD; wave += 40) {
      flood.push(
        ...(await Promise.all(
          Array.from({ length: 40 }, (_, j) =>
            post(flooder, 'keys', {}, (wave + j) % 2 ? { 'x-forwarded-for': `10.9.${wave}.${j}` } : {}),
          ),
        )),
      );
    }
    const neighbour = await post('127.0.0.51', 'slot', { queue: 'neighbour', other: 'fills' });
    const count = (status: number) => flood.filter((a) => a.status === status).length;
    t.diagnostic(
      `flooder ${flooder}: ${count(429)}× 429, ${count(400)}× 400 of ${FLOOD}; neighbour 127.0.0.51: ${neighbour.status}`,
    );
    assert.equal(count(429) + count(400), FLOOD, 'only the limiter’s 429 or the input’s 400');
    // At most each host's burst got through, and what the hosts' rates refilled meanwhile.
    const refilled = Math.ceil(((performance.now() - started) / 1000) * RATE * HOSTS.length);
    const limit = FLOOD - HOSTS.length * BURST - refilled;
    assert.ok(count(429) >= limit, `${count(429)} of ${FLOOD} limited; at least ${limit} should be`);
    const limited = flood.find((a) => a.status === 429)!;
    assert.match(String(limited.headers['retry-after']), /^\d+$/);
    assert.equal(neighbour.status, 200, String(decoded(neighbour)));
  });

  it('believes X-Forwarded-For only from the proxy: a reader who goes round it and names another is limited as itself', async () => {
    const sneak = '127.0.0.80';
    const named = '127.0.0.81';
    // Straight to one host, past its whole burst (both of its processes'), claiming to be `named`.
    const direct = await Promise.all(
      Array.from(
        { length: BURST + 20 },
        () =>
          requestFrom(sneak, `${sites[0]!.url}/api/experiments/keys`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': named },
            body: '{}',
          }).catch(() => ({ status: 0 })), // a connection past the site's per-address cap is closed
      ),
    );
    assert.ok(
      direct.some((a) => a.status === 429),
      'the sneak is limited',
    );
    const innocent = await requestFrom(named, `${sites[0]!.url}/api/experiments/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(innocent.status, 400, 'the address it named still has its whole burst');
  });

  it('holds one reader to 64 requests at once at the proxy: at 64 served, the 65th told 429', async () => {
    const reader = '127.0.0.70';
    // Requests whose body never comes: nginx reads their headers and waits for the body, each counted.
    const held: Socket[] = [];
    const hold = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        const socket = connect({
          host: '127.0.0.1',
          port: Number(new URL(nginx!.url).port),
          localAddress: reader,
        });
        socket.on('error', () => {});
        held.push(socket);
        await new Promise<void>((sent) =>
          socket.write(
            'POST /api/experiments/keys HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n',
            () => sent(),
          ),
        );
      }
      await new Promise((r) => setTimeout(r, 1000)); // nginx has read every header
    };
    try {
      await hold(63);
      const at = await requestFrom(reader, `${nginx!.url}/api/experiments`);
      assert.equal(at.status, 200, 'the 64th request at once is served');
      await hold(1);
      const past = await requestFrom(reader, `${nginx!.url}/api/experiments`);
      assert.equal(past.status, 429, 'the 65th is refused by the proxy');
      // nginx's own answer goes out with the headers of a public site too, each once.
      assert.equal(past.headers['x-frame-options'], 'DENY');
      assert.equal(past.headers['x-content-type-options'], 'nosniff');
      assert.match(
        String(past.headers['content-security-policy']),
        /^default-src 'none';.*frame-ancestors 'none'/,
      );
      const other = await requestFrom('127.0.0.71', `${nginx!.url}/api/experiments`);
      assert.equal(other.status, 200, 'another reader is served meanwhile');
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it('compresses through the proxy, as the reader asks, and keeps the reader’s connection alive', async () => {
    const page = await requestFrom('127.0.0.60', `${nginx!.url}/`, { headers: { 'accept-encoding': 'br' } });
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-encoding'], 'br');
    assert.match(String(decoded(page)), /<html/i);
    // The site's headers pass through the proxy as the site wrote them, each once.
    assert.match(
      String(page.headers['content-security-policy']),
      /^default-src 'self'; script-src 'self' 'sha256-/,
    );
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['referrer-policy'], 'strict-origin-when-cross-origin');
    const run = await post(
      '127.0.0.60',
      'slot',
      { queue: 'orders', other: 'fills' },
      { 'accept-encoding': 'gzip' },
    );
    assert.equal(run.headers['content-encoding'], 'gzip');
    assert.equal(
      run.headers['x-content-type-options'],
      'nosniff',
      'the JSON that echoes a reader is never sniffed',
    );
    assert.equal(JSON.parse(String(decoded(run))).result.key.slot, 105);

    // Two requests on one kept-alive connection: the second goes out on the socket the first used.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ reused: boolean; port: number; connection: unknown }>((resolve, reject) => {
        const req = request(`${nginx!.url}/api/experiments`, { agent, localAddress: '127.0.0.61' }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({
              reused: req.reusedSocket,
              port: req.socket!.localPort!,
              connection: res.headers.connection,
            }),
          );
        });
        req.on('error', reject);
        req.end();
      });
    const first = await get();
    const second = await get();
    agent.destroy();
    assert.equal(first.connection, 'keep-alive');
    assert.equal(second.reused, true, 'the second request reused the first one’s connection');
    assert.equal(second.port, first.port);
  });
});
