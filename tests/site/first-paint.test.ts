// What a page's first paint waits on (issue 26's Lighthouse 100), in Chromium at Lighthouse's phone size:
// on every course page and the 404, the HTML alone — no stylesheet to fetch first (astro.config.mjs
// inlines every sheet), no script that blocks the parser — and the server island asked for once, by the
// one preload its script then uses, never a second render of it on the server for nothing
// (src/lib/island-preloads.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Request } from 'playwright-core';
import { COURSE_ROUTES } from '../../scripts/site.ts';
import { PHONE } from '../../scripts/load-bytes.ts';
import { useExplorer } from '../support/explorer.ts';
import { useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const chromium = useBrowser();
const NOT_FOUND = '/no-such-page/';
const ISLAND = '/_server-islands/';

for (const route of [...COURSE_ROUTES, NOT_FOUND]) {
  test(`${route} paints from its HTML alone and asks for its server island once`, async () => {
    const context = await chromium.browser.newContext({ viewport: PHONE });
    try {
      const page = await context.newPage();
      const islandRequests: Request[] = [];
      page.on('request', (r) => new URL(r.url()).pathname.startsWith(ISLAND) && islandRequests.push(r));
      await page.goto(explorer.site.url + route, { waitUntil: 'load' });
      const explorers = await page.locator('[data-explorer-slot]').count();
      if (explorers) await page.locator('[data-explorer]:not([data-sandbox="loading"])').first().waitFor();
      await page.waitForLoadState('networkidle');

      const blocking = await page.evaluate(() => [
        ...[...document.querySelectorAll('link[rel~="stylesheet"]')].map((l) => `stylesheet ${l.outerHTML}`),
        ...[...document.querySelectorAll('script[src]')]
          .filter((s) => (s as HTMLScriptElement).type !== 'module' && !(s as HTMLScriptElement).defer)
          .filter((s) => !(s as HTMLScriptElement).async)
          .map((s) => `parser-blocking script ${s.outerHTML}`),
      ]);
      assert.deepEqual(blocking, [], 'nothing for the first paint to wait on but the HTML');
      const base = await page.evaluate(() =>
        getComputedStyle(document.documentElement).getPropertyValue('--bg'),
      );
      assert.notEqual(base.trim(), '', "the base sheet's tokens are there, inlined");

      // the preloads the HTML carries, and the island URLs the browser asked for, once each
      const preloads = await page.$$eval('link[rel="preload"][as="fetch"]', (links) =>
        links.map((l) => (l as HTMLLinkElement).href),
      );
      const asked = await page.evaluate(
        (island) =>
          performance
            .getEntriesByType('resource')
            .map((e) => e.name)
            .filter((name) => new URL(name).pathname.startsWith(island)),
        ISLAND,
      );
      assert.equal(asked.length, explorers, `one island request per explorer: ${asked.join(' ')}`);
      assert.equal(
        new Set(islandRequests.map((r) => r.url())).size,
        explorers,
        'one island URL per explorer',
      );
      assert.deepEqual(preloads.sort(), asked.sort(), 'each island preloaded once, and that preload used');
    } finally {
      await context.close();
    }
  });
}
