// Styles a component owns live in its .astro file's <style> (scoped), global.css keeps the tokens and the
// page chrome. Held here in Chromium, in both themes: each page makes one render-blocking stylesheet
// request — the base sheet, the one that defines the tokens — however many components bring their own
// styles (astro.config.mjs inlines every other sheet); the exercises and the console still get their
// own look; the verdict's <b>, which exercises-panel.ts writes after the build (so it carries no scope),
// takes the theme's colour for a right answer and the refusal colour for a wrong one.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useExplorer } from '../support/explorer.ts';
import { openPage, reach, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const GRAMMAR = '/protocol/the-owned-keyspace/braced-grammar/';

const chromium = useBrowser();

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the exercises' own styles apply in the ${colorScheme} theme`, async () => {
    const page = await openPage(chromium.browser, explorer.site.url + GRAMMAR, { width: 1280, colorScheme });
    const sheets = await page.$$eval('link[rel="stylesheet"]', (links) =>
      links.map((link) => (link as HTMLLinkElement).href),
    );
    assert.equal(sheets.length, 1, `one render-blocking stylesheet, the base: ${sheets.join(' ')}`);
    const base = await page.request.get(sheets[0]!);
    assert.equal(base.status(), 200, sheets[0]);
    assert.match(await base.text(), /--bg:/, 'the linked sheet is the one that defines the tokens');
    const inline = await page.$$eval('head style', (styles) => styles.map((s) => s.textContent ?? ''));
    assert.ok(
      inline.some((css) => css.includes('.ex-panel')) && inline.some((css) => css.includes('.cn-panel')),
      "the exercises' and the console's own styles are inlined in the head",
    );

    await reach(page, 'emq-exercises');
    await page.locator('emq-exercises button:not([disabled])').first().waitFor();
    const look = await page.evaluate(() => {
      const style = (selector: string) => getComputedStyle(document.querySelector(selector)!);
      return {
        panelTop: style('.ex-panel').marginTop,
        panelWidth: style('.ex-panel').maxWidth,
        listPadding: style('.ex-list').paddingLeft,
        listStyle: style('.ex-list').listStyleType,
        inputFont: style('.ex-form input:not([type="radio"])').fontFamily,
        actionsMargin: style('.ex-actions').marginTop,
      };
    });
    assert.equal(look.panelTop, '40px');
    assert.notEqual(look.panelWidth, 'none');
    assert.equal(look.listPadding, '0px');
    assert.equal(look.listStyle, 'none');
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

    // a wrong answer: "Not yet." in the refusal colour, which the exercises read from the site's tokens
    const wrong = page.locator('[data-exercise="grammar-byte-7"]');
    await wrong.locator('input').first().fill('no such answer');
    await wrong.getByRole('button', { name: 'Check' }).click();
    await wrong.getByRole('status').filter({ hasText: 'Not yet.' }).waitFor();
    const [notYet, refused, text] = await page.evaluate(() => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--refused)';
      document.body.append(probe);
      const b = document.querySelector('[data-exercise="grammar-byte-7"] .ex-verdict b')!;
      return [
        getComputedStyle(b).color,
        getComputedStyle(probe).color,
        getComputedStyle(document.body).color,
      ];
    });
    assert.equal(notYet, refused);
    assert.notEqual(notYet, text, '"Not yet." stands out from the text');
    await page.close();
  });
}
