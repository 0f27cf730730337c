// Styles a component owns live in its .astro file (Exercises.astro's <style>), global.css keeps the tokens
// and the page chrome. Held here in Chromium, in both themes: every stylesheet the page links loads, the
// exercises still get their own look, and the verdict's <b>, which exercises-panel.ts writes after the
// build (so it carries no scope attribute), still takes the theme's colour for a right answer.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useExplorer } from '../support/explorer.ts';
import { openPage, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const GRAMMAR = '/protocol/the-owned-keyspace/braced-grammar/';

const chromium = useBrowser();

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the exercises' own styles apply in the ${colorScheme} theme`, async () => {
    const page = await openPage(chromium.browser, explorer.site.url + GRAMMAR, { width: 1280, colorScheme });
    const sheets = await page.$$eval('link[rel="stylesheet"]', (links) =>
      links.map((link) => (link as HTMLLinkElement).href),
    );
    assert.ok(sheets.length >= 2, `the page links global.css and the exercises' styles: ${sheets.join(' ')}`);
    for (const href of sheets) assert.equal((await page.request.get(href)).status(), 200, href);

    await page.locator('emq-exercises button:not([disabled])').first().waitFor();
    const look = await page.evaluate(() => {
      const style = (selector: string) => getComputedStyle(document.querySelector(selector)!);
      return {
        panelTop: style('.ex-panel').marginTop,
        panelWidth: style('.ex-panel').maxWidth,
        listPadding: style('.ex-list').paddingLeft,
        inputFont: style('.ex-form input:not([type="radio"])').fontFamily,
        actionsMargin: style('.ex-actions').marginTop,
      };
    });
    assert.equal(look.panelTop, '40px');
    assert.notEqual(look.panelWidth, 'none');
    assert.equal(look.listPadding, '22.4px');
    assert.match(look.inputFont, /mono/i);
    assert.equal(look.actionsMargin, '6.4px');

    // a right answer: the verdict's <b> in the theme's colour for solved
    const item = page.locator('[data-exercise="grammar-schedule-key"]');
    await item.locator('input').fill('emq:{billing}:schedule');
    await item.getByRole('button', { name: 'Check' }).click();
    await item.getByRole('status').filter({ hasText: 'Right.' }).waitFor();
    const [verdict, solved] = await page.evaluate(() => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--ok)';
      document.body.append(probe);
      const b = document.querySelector('[data-exercise="grammar-schedule-key"] .ex-verdict b')!;
      return [getComputedStyle(b).color, getComputedStyle(probe).color];
    });
    assert.equal(verdict, solved);
    await page.close();
  });
}
