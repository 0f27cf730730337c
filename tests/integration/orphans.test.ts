// No orphans (issue 16.3): a site SIGKILLed leaves no valkey-server running — its watchdog notices the
// site is gone and stops them, and removes its run directory from /tmp; and when the watchdog is killed
// too, the next site to start finds the dead site's servers by their pid files and stops them.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startSiteWithOwnSandbox, type Site } from '../../scripts/site.ts';
import { alive, serversOf } from '../support/processes.ts';
import { until } from '../support/until.ts';

/** The watchdog of `site`'s run directory (its $0 names the directory). */
function watchdogOf(site: Site): number | undefined {
  const name = `emq-watchdog:${join(tmpdir(), `emq-sandbox-${site.pid}`)}`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(name)) return Number(entry);
    } catch {}
  }
  return undefined;
}

/** A site with a sandbox of its own (no VALKEY_URL): its four servers up. */
async function siteWithServers(): Promise<{ site: Site; servers: number[] }> {
  const site = await startSiteWithOwnSandbox();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const status = (await (await fetch(`${site.url}/api/sandbox`)).json()) as { sandbox: string };
    const servers = serversOf(site.pid);
    if (status.sandbox === 'up' && servers.length === 4) return { site, servers };
    if (Date.now() > deadline) throw new Error(`the site's sandbox never came up: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a site killed with SIGKILL', () => {
  it('leaves no valkey-server and no run directory: its watchdog stops them', async () => {
    const { site, servers } = await siteWithServers();
    const dir = join(tmpdir(), `emq-sandbox-${site.pid}`);
    assert.ok(existsSync(dir), 'the run directory is where the watchdog looks');
    process.kill(site.pid, 'SIGKILL');
    await until('every server stopped', () => servers.every((pid) => !alive(pid)));
    await until('the run directory removed', () => !existsSync(dir));
  });

  it('with its watchdog killed too: the next start stops the servers it left, from their pid files', async () => {
    const first = await siteWithServers();
    const dir = join(tmpdir(), `emq-sandbox-${first.site.pid}`);
    const watchdog = watchdogOf(first.site);
    assert.ok(watchdog, 'the site has a watchdog');
    process.kill(watchdog!, 'SIGKILL');
    process.kill(first.site.pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    if (!first.servers.every(alive)) {
      // Nothing of the dead site can stop them now, so another site's start did: the suite runs two files
      // at once, and every start sweeps the run directories of dead sites — the very sweep this test is
      // about. Its work must then be whole: every orphan stopped and the run directory gone.
      await until('the orphans stopped by a concurrent start', () =>
        first.servers.every((pid) => !alive(pid)),
      );
      await until('the dead site’s run directory swept', () => !existsSync(dir));
      return;
    }

    const next = await siteWithServers();
    try {
      await until('the orphans stopped', () => first.servers.every((pid) => !alive(pid)));
      assert.ok(!existsSync(dir), 'the dead site’s run directory is gone');
    } finally {
      await next.site.close();
    }
    await until('the closed site’s servers stopped', () => next.servers.every((pid) => !alive(pid)));
  });
});
