// The explorer's output defects a reader found, each held here at 360 and 1280 px: a code said once, a
// bad job id named as such, the would-be key of a braced name with its hashtag, the layout check's
// cluster column following the keys the reader edited, the wire shown, and the words explained.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { useExplorer } from '../support/explorer.ts';
import { openPage, reachExplorer, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const MODULE = '/protocol/the-owned-keyspace/';
const GRAMMAR = `${MODULE}braced-grammar/`;

const chromium = useBrowser();

async function open(route: string, width: number): Promise<Page> {
  const page = await openPage(chromium.browser, explorer.site.url + route, { width });
  await reachExplorer(page, '[data-sandbox="up"]');
  return page;
}

for (const width of [360, 1280]) {
  test(`explorer output at ${width} px`, async () => {
    const page = await open(GRAMMAR, width);
    const keys = page.locator('[data-experiment="keys"]');
    const run = () => keys.getByRole('button', { name: 'Enqueue on the sandbox' }).click();

    // a}b: the refusal, the key it would have made and the hashtag a cluster would read
    await keys.getByLabel('Queue name', { exact: true }).fill('a}b');
    await run();
    await keys.locator('[data-would-be]').waitFor();
    const wouldBe = await keys.locator('[data-would-be]').innerText();
    assert.match(wouldBe, /emq:\{a\}b\}:pending would hash on a, not on the name a\}b/);
    assert.doesNotMatch(await keys.innerText(), /BRACE BRACE/);

    // a bad job id is a job id refused, not a name
    await keys.getByLabel('Queue name', { exact: true }).fill('orders');
    await keys.getByLabel(/Job id/).fill('JOB1');
    await run();
    await keys.getByText('The host refused the job id before the wire.').waitFor();

    // an accepted run shows its wire: the EVALSHA as sent, collapsible
    await keys.getByLabel(/Job id/).fill('');
    await run();
    await keys.locator('.xp-accepted').waitFor();
    await keys.locator('.xp-wire summary').click();
    assert.match(await keys.locator('.xp-wire').innerText(), /> EVALSHA [0-9a-f]{40} 2 /);

    // the layout check: an edited key goes to the cluster too, where routing answers first
    const layout = page.locator('[data-experiment="layout"]');
    await layout.getByLabel('Key 2').fill('emq:{ordErs}:pending');
    await layout.getByRole('button', { name: 'Call EMQ.ENQUEUE' }).click();
    const cluster = layout.locator('[data-node="cluster"]');
    // the badge says what the reply is (refused), the text says which: the routing check answered
    await cluster.locator('.xp-refused', { hasText: 'CROSSSLOT' }).waitFor();
    assert.equal(await cluster.locator('.xp-refused .xp-badge').innerText(), 'refused');
    assert.equal(
      await cluster.locator('[data-check][data-state="answered"]').getAttribute('data-check'),
      'routing',
    );
    const standalone = await layout.locator('[data-node="standalone"]').innerText();
    assert.match(standalone, /EMQKEY/);
    assert.doesNotMatch(standalone, /EMQKEY EMQKEY/);

    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
    await page.close();
  });
}

test('the words the experiments use are explained where they are used', async () => {
  const page = await open(MODULE, 1280);
  const two = page.locator('[data-experiment="two-executors"] .xp-terms');
  await two.locator('summary').click();
  const text = await two.innerText();
  for (const word of ['lease', 'token', 'duplicate', 'stale', 'branded id', 'EMQSTALE'])
    assert.ok(text.includes(word), word);
  await page.close();
  const reserve = await open(`${MODULE}reserve/`, 1280);
  const terms = reserve.locator('[data-experiment="reserve"] .xp-terms');
  await terms.locator('summary').click();
  assert.match(await terms.innerText(), /wire 4[\s\S]*echomq:4\.0\.0[\s\S]*wire 6[\s\S]*echomq:6\.0\.0/);
  await reserve.close();
});
