// The server island is asked for once a page (issue 26): in Chromium at Lighthouse's phone size, every
// course page preloads one island URL per explorer and its island script fetches that very URL, so the
// preload is used and no second island is rendered on the server for nothing. Astro 7.3.5 writes the
// preload twice on our MDX pages; src/lib/island-preloads.ts drops the one no script fetches.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Request } from 'playwright-core';
import { COURSE_ROUTES } from '../../scripts/site.ts';
import { PHONE } from '../../scripts/load-bytes.ts';
import { useExplorer } from '../support/explorer.ts';
import { useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const chromium = useBrowser();
const ISLAND = '/_server-islands/';

for (const route of COURSE_ROUTES) {
  test(`${route} asks for its server island once, by the preload its script uses`, async () => {
    const context = await chromium.browser.newContext({ viewport: PHONE });
    try {
      const page = await context.newPage();
      const islandRequests: Request[] = [];
      page.on('request', (r) => new URL(r.url()).pathname.startsWith(ISLAND) && islandRequests.push(r));
      await page.goto(explorer.site.url + route, { waitUntil: 'load' });
      const explorers = await page.locator('[data-explorer-slot]').count();
      if (explorers) await page.locator('[data-explorer]:not([data-sandbox="loading"])').first().waitFor();
      await page.waitForLoadState('networkidle');

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
