// The drain's two ends, with WORKERS 1 and 2, on a site with a sandbox of its own: a second SIGTERM ends
// the drain at once (a run still in flight is cut, on purpose), and so does the drain's deadline (the run
// deadline plus 5 s: each worker's, and the primary's 2 s later as a backstop); either way the sandbox's
// servers go with the site; and requests a client pipelined behind an answer that closed the connection
// are not counted (nor kept) as in flight. That a drain answers every run in flight is
// tests/deploy/guide.test.ts's.

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { startSiteWithOwnSandbox, type Site } from '../../scripts/site.ts';
import { halfSent } from '../support/half-sent.ts';
import { alive, serversOf } from '../support/processes.ts';
import { sandboxUp } from '../support/sandbox-up.ts';
import { until } from '../support/until.ts';

/** A site with its own sandbox, up, and the pids of its servers. */
async function upSite(env: NodeJS.ProcessEnv): Promise<{ site: Site; servers: number[] }> {
  const site = await startSiteWithOwnSandbox(env);
  await sandboxUp(site.url, 30_000);
  return { site, servers: serversOf(site.pid) };
}

/** When (ms after `from`) and how the site's process ended. */
function ending(site: Site, from: () => number): Promise<{ ms: number; log: string }> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (alive(site.pid)) return;
      clearInterval(poll);
      resolve({ ms: performance.now() - from(), log: site.output() });
    }, 20);
  });
}

for (const workers of [1, 2]) {
  describe(`the drain with WORKERS=${workers}`, () => {
    it('a second SIGTERM ends it at once, the run still in flight cut, the servers stopped', async (t) => {
      const { site, servers } = await upSite({ WORKERS: String(workers) });
      try {
        assert.ok(servers.length >= 4, `the sandbox's servers: ${servers.join(', ')}`);
        const held = halfSent(`${site.url}/api/experiments/keys`, { queue: 'held' });
        await new Promise((r) => setTimeout(r, 200));
        process.kill(site.pid, 'SIGTERM');
        await new Promise((r) => setTimeout(r, 500));
        assert.ok(alive(site.pid), 'still draining: a run is in flight');
        let second = 0;
        const ended = ending(site, () => second);
        second = performance.now();
        process.kill(site.pid, 'SIGTERM');
        const { ms, log } = await ended;
        t.diagnostic(`ended ${Math.round(ms)} ms after the second SIGTERM`);
        assert.ok(ms < 2000, `ended at once (${Math.round(ms)} ms)`);
        assert.match(log, /drain: SIGTERM again: ending now/);
        await assert.rejects(held.reply, 'the held run is cut, not answered');
        await until('every server of the sandbox stopped', () => servers.every((pid) => !alive(pid)), 10_000);
      } finally {
        if (alive(site.pid)) process.kill(site.pid, 'SIGKILL');
      }
    });

    it('the deadline ends it: a run that never finishes keeps it no longer than the run deadline plus 5 s', async (t) => {
      // RUN_DEADLINE_MS=1000: the drain's deadline is 6 s (and the primary's 8 s); a body that never comes
      // would hold the request for REQUEST_TIMEOUT_MS (15 s), longer than that, once its pace allows it
      // that long (by default a body must be whole within 2 s and is answered 408 then).
      const { site, servers } = await upSite({
        WORKERS: String(workers),
        RUN_DEADLINE_MS: '1000',
        BODY_GRACE_MS: '15000',
      });
      try {
        const held = halfSent(`${site.url}/api/experiments/keys`, { queue: 'held' });
        await new Promise((r) => setTimeout(r, 200));
        let signalled = 0;
        const ended = ending(site, () => signalled);
        signalled = performance.now();
        process.kill(site.pid, 'SIGTERM');
        const { ms, log } = await ended;
        t.diagnostic(`ended ${Math.round(ms)} ms after SIGTERM`);
        // With workers, each ends at its own deadline and the primary right after (its own is 2 s later).
        const deadline = 6000;
        assert.ok(
          ms >= deadline - 200 && ms < deadline + 3000,
          `ended at the deadline (${Math.round(ms)} ms)`,
        );
        assert.match(log, /drain: deadline of \d+ ms passed/);
        await assert.rejects(held.reply);
        await until('every server of the sandbox stopped', () => servers.every((pid) => !alive(pid)), 10_000);
      } finally {
        if (alive(site.pid)) process.kill(site.pid, 'SIGKILL');
      }
    });
  });
}

describe('requests pipelined behind a closing answer', () => {
  it('are over when their connection closes (20 behind a 429): the drain finds none in flight and ends at once', async () => {
    // EXPLORER_BURST=1: the catalogue's second read is refused 429, which closes the connection.
    const { site } = await upSite({ WORKERS: '1', EXPLORER_BURST: '1' });
    try {
      const pipelined = 'GET /api/experiments HTTP/1.1\r\nHost: l\r\n\r\n'.repeat(22);
      const { port } = new URL(site.url);
      const answers = await new Promise<string>((resolve, reject) => {
        let read = '';
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(pipelined));
        socket.on('data', (chunk) => (read += chunk));
        socket.on('error', reject);
        socket.on('close', () => resolve(read));
      });
      const statuses = [...answers.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
      assert.deepEqual(statuses, ['200', '429'], 'a read, a refusal that closed the connection, 20 left');
      const ended = ending(site, () => 0);
      process.kill(site.pid, 'SIGTERM');
      const { log } = await ended;
      assert.match(log, /drain: SIGTERM: not ready; taking no new connection; 0 requests in flight/);
      assert.doesNotMatch(log, /drain: deadline of \d+ ms passed/);
    } finally {
      if (alive(site.pid)) process.kill(site.pid, 'SIGKILL');
    }
  });
});
