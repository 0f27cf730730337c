// A fault test: the site starts its own supervised sandbox (no VALKEY_URL); the standalone valkey-server
// is SIGKILLed while a reader's run is on its way. The pages keep serving, the island says the sandbox
// is down, and after the automatic restart an experiment works again with no manual step.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { COURSE_ROUTES, startSiteWithOwnSandbox, type Site } from '../../scripts/site.ts';
import { launchBrowser, reachExplorer } from '../support/site.ts';
import { serversOf } from '../support/processes.ts';
import { boundedTeardown } from '../support/teardown.ts';

let site: Site;
let browser: Browser;
before(async () => {
  site = await startSiteWithOwnSandbox({
    EXPLORER_BURST: '10000',
    EXPLORER_RATE: '10000',
  });
  browser = await launchBrowser();
});
after(() =>
  boundedTeardown(async () => {
    await browser?.close();
    await site?.close();
  }),
);

/** The site's own valkey-server children, by their command lines. */
function sandboxChildren(): { standalone: number; cluster: number } {
  const pids = execFileSync('pgrep', ['-P', String(site.pid)], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map(Number);
  const found: { standalone?: number; cluster?: number } = {};
  for (const pid of pids) {
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (!/valkey-server/.test(cmd)) continue;
    // valkey-server retitles itself "valkey-server <addr> [cluster]" on a cluster-enabled node
    if (/\[cluster\]|--cluster-enabled yes/.test(cmd)) found.cluster = pid;
    else found.standalone = pid;
  }
  assert.ok(found.standalone && found.cluster, `the site's valkey-server children: ${pids.join(', ')}`);
  return found as { standalone: number; cluster: number };
}

async function sandbox(): Promise<string> {
  return ((await (await fetch(`${site.url}/api/sandbox`)).json()) as { sandbox: string }).sandbox;
}

test('the standalone sandbox dies mid-run: pages serve, the island says so, and it recovers by itself', async () => {
  // wake the sandbox and wait until it answers
  for (let i = 0; (await sandbox()) !== 'up'; i++) {
    assert.ok(i < 100, 'the sandbox came up');
    await new Promise((r) => setTimeout(r, 100));
  }
  const { standalone } = sandboxChildren();

  const page = await browser.newPage();
  await page.goto(`${site.url}/protocol/the-owned-keyspace/braced-grammar/`);
  const root = await reachExplorer(page);
  await page.locator('[data-explorer][data-sandbox="up"]').waitFor();
  // The island (rendered by Astro's server build) and the API (its status, asked above) use one
  // runtime: a second copy of it would have started a second sandbox under the site.
  const html = await (await fetch(`${site.url}/protocol/the-owned-keyspace/`)).text();
  const island = /\/_server-islands\/[^"]+/.exec(html)?.[0]?.replaceAll('&amp;', '&');
  assert.ok(island, 'the module page has a server island');
  const islandAnswer = await fetch(site.url + island);
  const islandHtml = await islandAnswer.text();
  assert.equal(islandAnswer.status, 200, islandHtml);
  assert.match(islandHtml, /data-sandbox="up"/);
  assert.equal(serversOf(site.pid).length, 4, 'one standalone node and three cluster nodes');

  // the reader's run leaves the browser; on its way, the standalone server is SIGKILLed
  let killed = false;
  await page.route('**/api/experiments/keys', async (route) => {
    if (!killed) {
      killed = true;
      process.kill(standalone, 'SIGKILL');
    }
    await route.continue();
  });
  const section = page.locator('[data-experiment="keys"]');
  await section.getByRole('button', { name: 'Enqueue on the sandbox' }).click();

  // the island reports the outage plainly, in its live status, and in the run's result
  await page.locator('[data-explorer][data-sandbox="down"]').waitFor();
  assert.match(
    await page.getByRole('status').first().innerText(),
    /The sandbox is down\. It restarts by itself/,
  );
  assert.match(await section.locator('[data-result]').innerText(), /SANDBOX_DOWN/);
  assert.equal(await page.getByRole('status').first().getAttribute('aria-live'), 'polite');

  // the pages keep serving meanwhile
  for (const route of COURSE_ROUTES) assert.equal((await fetch(site.url + route)).status, 200, route);

  // the supervisor restarts the server; the island notices by itself, and a run works again
  await page.locator('[data-explorer][data-sandbox="up"]').waitFor({ timeout: 20_000 });
  const restarted = sandboxChildren().standalone;
  assert.notEqual(restarted, standalone, 'a new valkey-server process');
  await section.getByLabel('Queue name').fill('after-the-fault');
  await section.getByRole('button', { name: 'Enqueue on the sandbox' }).click();
  await section.locator('.xp-accepted', { hasText: 'enqueued' }).waitFor();
  assert.match(await section.locator('.xp-live').innerText(), /emq:\{after-the-fault\}:pending/);
  await page.close();
});
