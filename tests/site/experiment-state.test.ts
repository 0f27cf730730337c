// Every experiment's inputs live in the link: a run writes them to the query string, a reload (or the
// link opened elsewhere) brings them back, and Reset restores the defaults and clears the link.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { useExplorer } from '../support/explorer.ts';
import { openPage, useBrowser, reachExplorer } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const MODULE = '/protocol/the-owned-keyspace/';

const chromium = useBrowser();

async function open(url: string, width: number): Promise<Page> {
  const page = await openPage(chromium.browser, url, { width });
  await reachExplorer(page);
  return page;
}

for (const width of [360, 1280]) {
  test(`inputs in the link at ${width} px: keys and the layout check survive a reload; Reset`, async () => {
    const page = await open(`${explorer.site.url}${MODULE}braced-grammar/`, width);
    const keys = page.locator('[data-experiment="keys"]');
    await keys.getByLabel('Queue name', { exact: true }).fill('fills');
    await keys.getByRole('button', { name: 'Enqueue on the sandbox' }).click();
    const layout = page.locator('[data-experiment="layout"]');
    await layout.getByLabel('Verb').selectOption('claim');
    await layout.getByLabel('Key 2').fill('emq:{orders}:activX');
    await layout.getByRole('button', { name: 'Call EMQ.CLAIM' }).click();
    await layout.locator('[data-node="standalone"] .xp-badge').waitFor();
    const link = page.url();
    assert.match(link, /keys\.queue=fills/);
    assert.match(link, /layout\.verb=claim/);

    // the link opened afresh reproduces the inputs
    const again = await open(link, width);
    assert.equal(
      await again.locator('[data-experiment="keys"]').getByLabel('Queue name', { exact: true }).inputValue(),
      'fills',
    );
    const layoutAgain = again.locator('[data-experiment="layout"]');
    assert.equal(await layoutAgain.getByLabel('Verb').inputValue(), 'claim');
    assert.equal(await layoutAgain.getByLabel('Key 2').inputValue(), 'emq:{orders}:activX');

    await layoutAgain.getByRole('button', { name: 'Reset to the defaults' }).click();
    assert.equal(await layoutAgain.getByLabel('Verb').inputValue(), 'enqueue');
    assert.equal(await layoutAgain.getByLabel('Key 2').inputValue(), 'emq:{orders}:pending');
    assert.doesNotMatch(again.url(), /layout\./);
    assert.match(again.url(), /keys\.queue=fills/, 'only the experiment reset forgets its inputs');
    await again.close();
    await page.close();
  });
}

test('two executors: a sequence in the link comes back on every step, though a step arrives holding its own choice alone', async () => {
  const page = await open(`${explorer.site.url}${MODULE}`, 1280);
  const section = page.locator('[data-experiment="two-executors"]');
  const selects = section.locator('select[name="step"]');
  const defaults = await selects.evaluateAll((all) => all.map((s) => (s as HTMLSelectElement).value));
  // reached for, a step offers every choice; picked, the choice is in the link
  await selects.nth(1).focus();
  await selects.nth(1).selectOption('stale');
  const link = page.url();
  assert.match(decodeURIComponent(link), /two-executors\.step=[^&]*stale/);

  const again = await open(link, 1280);
  const steps = again.locator('[data-experiment="two-executors"] select[name="step"]');
  const restored = await steps.evaluateAll((all) => all.map((s) => (s as HTMLSelectElement).value));
  assert.deepEqual(restored, [defaults[0], 'stale', ...defaults.slice(2)]);
  await again
    .locator('[data-experiment="two-executors"]')
    .getByRole('button', { name: 'Reset to the defaults' })
    .click();
  assert.deepEqual(
    await steps.evaluateAll((all) => all.map((s) => (s as HTMLSelectElement).value)),
    defaults,
  );
  await again.close();
  await page.close();
});
