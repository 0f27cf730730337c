// The console panel as a reader uses it, in Chromium at 360 and 1280 px: prefilled with the page's
// example, run, each reply redis-cli style with the section that explains an error; edited lines kept in
// the link across a reload; Reset back to the example; a refused command shown as never sent.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { useExplorer } from '../support/explorer.ts';
import { openPage, reach, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const GRAMMAR = '/protocol/the-owned-keyspace/braced-grammar/';
const HASHTAG = '/protocol/the-owned-keyspace/hashtag-and-slot/';

const chromium = useBrowser();

async function open(route: string, width: number, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await openPage(chromium.browser, explorer.site.url + route, { width, colorScheme });
  await reach(page, 'emq-console');
  await page.locator('emq-console button[type="submit"]:not([disabled])').waitFor();
  return page;
}

for (const [width, scheme] of [
  [360, 'dark'],
  [1280, 'light'],
] as const) {
  test(`console at ${width} px (${scheme}): the page's example runs; an EMQKEY links its section; state in the link; Reset`, async () => {
    const page = await open(GRAMMAR, width, scheme);
    const panel = page.locator('.cn-panel');
    const lines = panel.getByLabel('Commands, one per line');
    assert.match(await lines.inputValue(), /^EMQ\.ENQUEUE 2 emq:\{orders\}/);
    await panel.getByRole('button', { name: 'Run' }).click();
    await panel.locator('.cn-line').nth(2).waitFor();
    const [accepted, refused] = await panel.locator('.cn-line').all();
    assert.equal((await accepted!.locator('.cn-reply').innerText()).trim(), '(integer) 1');
    assert.match(
      await refused!.locator('.cn-reply').innerText(),
      /^\(error\) EMQKEY key 2 differs at byte 10/,
    );
    assert.equal(
      await refused!.getByRole('link').getAttribute('href'),
      '/protocol/the-owned-keyspace/braced-grammar/#the-server-rebuilds-every-key',
    );
    // the code is said once, never "EMQKEY EMQKEY"
    assert.doesNotMatch(await panel.innerText(), /EMQKEY EMQKEY/);
    // the wire, collapsible: the EMQ.* call as sent and the server's byte count
    await refused!.locator('.xp-wire summary').click();
    assert.match(await refused!.locator('.xp-wire').innerText(), /> EMQ\.ENQUEUE 2 emq:\{orders\}:job:/);
    // nothing wider than the screen
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
    const axe = await new AxeBuilder({ page }).include('.cn-panel').analyze();
    assert.deepEqual(
      axe.violations.map((v) => v.id),
      [],
    );

    // edited lines live in the link: a reload keeps them, Reset brings the example back
    await lines.fill('KEYS *\nPING');
    await page.reload();
    await reach(page, 'emq-console');
    await page.locator('emq-console button[type="submit"]:not([disabled])').waitFor();
    assert.equal(await lines.inputValue(), 'KEYS *\nPING');
    assert.match(page.url(), /console\.lines=KEYS/);
    await panel.getByRole('button', { name: 'Run' }).click();
    await panel.locator('.cn-line').nth(1).waitFor();
    assert.match(
      await panel.locator('.cn-line').first().innerText(),
      /refused by the console, never sent\) KEYS is not allowed in the console/,
    );
    assert.match(await panel.locator('.cn-line').first().locator('.xp-wire summary').innerText(), /: 0$/);
    await panel.getByRole('button', { name: /Reset/ }).click();
    assert.match(await lines.inputValue(), /^EMQ\.ENQUEUE 2 emq:\{orders\}/);
    assert.doesNotMatch(page.url(), /console\./);
    await page.close();
  });
}

test('console on the cluster: the slot page’s example names the node that answered', async () => {
  const page = await open(HASHTAG, 1280);
  const panel = page.locator('.cn-panel');
  assert.equal(await panel.getByLabel(/three-node cluster/).isChecked(), true);
  await panel.getByRole('button', { name: 'Run' }).click();
  await panel.locator('.cn-line').nth(3).waitFor();
  const text = await panel.innerText();
  assert.match(text, /\(integer\) 12739/);
  assert.match(text, /\(error\) CROSSSLOT/);
  assert.match(text, /answered by node 127\.0\.0\.1:\d+/);
  await page.close();
});
