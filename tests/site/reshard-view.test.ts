// The reshard view in Chromium at 360 and 1280 px, against a three-node cluster this file owns: the
// migration's phases in the order they happened, each with its node map (the owner moving from the
// queue's node to the next and back, the open states, the keys on each side), its probes with the
// node named as on the map (node 1/2/3, then the address) and the reply word for word; the cluster
// client's claim and its answer. Keys are never re-cased by CSS, and nothing overflows the page.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useExplorer } from '../support/explorer.ts';
import { openPage, useBrowser, reachExplorer } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const HASHTAG = '/protocol/the-owned-keyspace/hashtag-and-slot/';
const chromium = useBrowser();

for (const width of [360, 1280]) {
  test(`reshard at ${width} px: phases in order, the map moving, probes named and exact`, async () => {
    const page = await openPage(chromium.browser, explorer.site.url + HASHTAG, { width });
    await reachExplorer(page, '[data-sandbox="up"]');
    const section = page.locator('[data-experiment="route"]');
    await section.getByRole('button', { name: 'Move its slot, and back' }).click();
    await section.locator('[data-reshard="phases"]').waitFor({ timeout: 30_000 });

    const phases = section.locator('[data-phase]');
    assert.deepEqual(await phases.evaluateAll((els) => els.map((el) => el.getAttribute('data-phase'))), [
      'stable',
      'importing',
      'migrating',
      'split',
      'moved',
      'owner',
      'back',
    ]);
    // The map moves: node 1 owns slot 105 until the flip, node 2 after it, node 1 again at the end.
    const owners = await phases.evaluateAll((els) =>
      els.map((el) => el.querySelector('.xp-phase-node.is-owner')?.getAttribute('data-node')),
    );
    assert.deepEqual(owners, ['1', '1', '1', '1', '1', '2', '1']);
    const split = section.locator('[data-phase="split"]');
    assert.equal(await split.locator('[data-node="1"] .xp-phase-keys li').count(), 3);
    assert.equal(await split.locator('[data-node="2"] .xp-phase-keys li').count(), 1);
    assert.match(await split.locator('[data-node="1"]').innerText(), /MIGRATING/);
    assert.match(await split.locator('[data-node="2"]').innerText(), /IMPORTING/);

    // Probes: the node as the map names it, then its address; the reply as the node sent it.
    const askProbe = split.locator('[data-probe="a moved key, on the owner"]');
    assert.match(await askProbe.innerText(), /to node 1 127\.0\.0\.1:\d+/);
    assert.match(String(await askProbe.locator('[data-reply]').textContent()), /^ASK 105 127\.0\.0\.1:\d+$/);
    const claimOnTarget = split.locator('[data-probe="the scripted claim on the target, after ASKING"]');
    assert.match(
      await claimOnTarget.innerText(),
      /^[\s\S]*ASKING, then EVALSHA [0-9a-f]{40} 3 emq:\{orders\}:pending/,
    );
    assert.equal(
      await claimOnTarget.locator('[data-reply]').textContent(),
      'TRYAGAIN Multiple keys request during rehashing of slot',
    );
    assert.match(
      String(
        await section
          .locator('[data-phase="owner"] [data-probe="the scripted claim on the new owner"] [data-reply]')
          .textContent(),
      ),
      /^\["JOB/,
    );
    assert.match(String(await section.locator('[data-reply="client"]').textContent()), /^\["JOB/);

    // Keys keep their case: no text-transform on any code in the view; the page does not scroll sideways.
    const transforms = await section
      .locator('[data-result] code')
      .evaluateAll((els) => [...new Set(els.map((el) => getComputedStyle(el).textTransform))]);
    assert.deepEqual(transforms, ['none']);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the window`);
    await page.close();
  });
}
