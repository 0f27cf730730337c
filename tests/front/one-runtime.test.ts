// The JSON API is served from server/ by the front, and the server island from Astro's bundle, which
// carries its own copy of the runtime module: both must run on one runtime — one sandbox, one pool of
// leases — never two. A site that starts its own sandbox shows it in its process tree.

import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSiteWithOwnSandbox, type Site } from '../../scripts/site.ts';
import { processTreeOf } from '../support/processes.ts';
import { boundedTeardown } from '../support/teardown.ts';

/** The valkey-servers under `root`, by walking /proc's parent links. */
function valkeyServersBelow(root: number): number {
  return processTreeOf(root).filter((p) => p.comm.startsWith('valkey-serv')).length;
}

let site: Site | undefined;
before(async () => {
  site = await startSiteWithOwnSandbox();
});
after(() => boundedTeardown(async () => site?.close()));

it('the island and the API share one sandbox: one standalone node and three cluster nodes', async () => {
  const html = await (await fetch(`${site!.url}/protocol/the-owned-keyspace/`)).text();
  const island = /\/_server-islands\/[^"]+/.exec(html)?.[0]?.replaceAll('&amp;', '&');
  assert.ok(island, 'the module page has a server island');
  const islandAnswer = await fetch(site!.url + island);
  assert.equal(islandAnswer.status, 200, await islandAnswer.text());
  const run = await fetch(`${site!.url}/api/experiments/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ queue: 'orders' }),
  });
  assert.equal(run.status, 200, await run.text());
  const status = await (await fetch(`${site!.url}/api/sandbox`)).json();
  assert.equal(status.sandbox, 'up');
  assert.equal(valkeyServersBelow(site!.pid), 4);
});
