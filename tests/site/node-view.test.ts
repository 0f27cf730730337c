// The slot dive's node view, as a reader uses it in Chromium against a three-node cluster this file owns:
// the strip shows the three nodes' ranges (from CLUSTER SHARDS after a run), the queue and the reserve with
// their owner nodes; a route run shows the MOVED another node answered, the keys on one node, the scattered
// CROSSSLOT and the native answers; the queue emq is said to share the reserve's slot (the reshard view:
// reshard-view.test.ts); and without JavaScript the fallback already shows the three ranges.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Valkey } from 'iovalkey';
import type { Locator, Page } from 'playwright-core';
import { readShards } from '../../server/sandbox/cluster-topology.ts';
import { useExplorer } from '../support/explorer.ts';
import { openPage, useBrowser, reachExplorer } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const HASHTAG = '/protocol/the-owned-keyspace/hashtag-and-slot/';

const chromium = useBrowser();

async function open(javaScript = true): Promise<Page> {
  const page = await openPage(chromium.browser, explorer.site.url + HASHTAG, {
    javaScriptEnabled: javaScript,
  });
  if (javaScript) await reachExplorer(page, '[data-sandbox="up"]');
  return page;
}

/** The strip as the sandbox lays the cluster out: three even ranges, orders on node 1, the reserve on node 2. */
async function showsTheLayout(section: Locator): Promise<void> {
  // each node's band is labelled with its range (the key under the map, once there is one, says it again)
  assert.deepEqual(await section.locator('.xp-band-label.is-range').allTextContents(), [
    '0–5460',
    '5461–10922',
    '10923–16383',
  ]);
  assert.equal(await section.locator('[data-owner="queue"]').textContent(), 'node 1');
  assert.equal(await section.locator('[data-owner="reserve"]').textContent(), 'node 2');
}

test('route: the nodes, the owner, MOVED word for word, one node served, scattered CROSSSLOT, native answers', async () => {
  const admin = new Valkey(explorer.sandbox.cluster!.url.split(',')[0]!);
  const shards = await readShards(admin);
  admin.disconnect();
  const page = await open();
  const section = page.locator('[data-experiment="route"]');
  await section.getByRole('button', { name: 'Route it on the cluster' }).click();
  await section.locator('[data-route="moved"] [data-reply]').waitFor();
  assert.deepEqual(
    await section.locator('[data-node-address]').allTextContents(),
    shards.map((s) => s.address),
  );
  await showsTheLayout(section);
  assert.equal(await section.locator('[data-pin="queue"]').textContent(), '105');
  assert.equal(
    await section.locator('[data-route="moved"] [data-reply]').textContent(),
    `MOVED 105 ${shards[0]!.address}`,
  );
  assert.match(await section.locator('[data-route="served"]').innerText(), /one node/);
  assert.equal(
    await section.locator('[data-route="scattered"] [data-reply]').textContent(),
    "CROSSSLOT Keys in request don't hash to the same slot",
  );
  assert.equal(
    await section.locator('[data-reply="owner"]').textContent(),
    'EMQWIRE expected a standalone server but cluster mode is enabled',
  );
  assert.match(String(await section.locator('[data-reply="non-owner"]').textContent()), /^MOVED 105 /);
  assert.equal(await section.locator('[data-shares-reserve]').count(), 0);

  // The queue emq lands on the reserve's slot, and the page says so as the reader types.
  await section.getByLabel('Queue name').fill('emq');
  await section.locator('[data-shares-reserve]').waitFor();
  assert.equal(await section.locator('[data-pin="queue"]').textContent(), '9051');
  assert.equal(await section.locator('[data-owner="queue"]').textContent(), 'node 2');
  await section.getByRole('button', { name: 'Route it on the cluster' }).click();
  await section.locator('[data-result] [data-shares-reserve]').waitFor();
  await page.close();
});

test('without JavaScript the node view already shows the three ranges and where orders and the reserve live', async () => {
  const page = await open(false);
  await showsTheLayout(page.locator('[data-experiment="route"]').first());
  await page.close();
});
