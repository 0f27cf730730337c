// What one page load costs the reader in bytes, read in Chromium from the page's own resource timing:
// the HTML's, the scripts' and everything's encoded (brotli, as served) body bytes, and the page's
// element count once the load has settled. Only what loads without the reader scrolling or touching
// anything counts: a script loaded later, when its section nears the viewport, is not "at load". The
// scripts are counted twice: those requested by the load event, and all of them once the page is idle.
// Shared by bench/page-bytes.ts and the test that holds the budget (tests/site/lazy-scripts.test.ts).
import type { Browser } from 'playwright-core';

export interface LoadBytes {
  html: number;
  /** the scripts requested before the load event ended */
  js: number;
  /** every script fetched once the page has settled: what it loads on idle too (a search index, say) */
  jsSettled: number;
  css: number;
  total: number;
  elements: number;
  /**
   * every resource fetched, by path, with its encoded body bytes and whether it was requested before the
   * load event ended (the same path twice is two entries)
   */
  resources: { path: string; bytes: number; atLoad: boolean }[];
}

/** Lighthouse's phone: 412 × 823 CSS px. */
export const PHONE = { width: 412, height: 823 };

/**
 * Loads `url` in a fresh context (no cache), waits for the load, for `settled` (e.g. the island's
 * arrival), then a quiet second, and reads what was fetched and how many elements the page holds.
 */
export async function loadBytes(
  browser: Browser,
  url: string,
  settled: (page: import('playwright-core').Page) => Promise<unknown> = async () => {},
): Promise<LoadBytes> {
  const context = await browser.newContext({ viewport: PHONE, extraHTTPHeaders: {} });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await settled(page);
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(1000);
    const read = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      return {
        html: nav.encodedBodySize,
        resources: entries.map((e) => ({
          path: new URL(e.name).pathname,
          bytes: e.encodedBodySize,
          atLoad: e.startTime <= nav.loadEventEnd,
        })),
        elements: document.getElementsByTagName('*').length,
      };
    });
    const of = (re: RegExp, atLoad = false) =>
      read.resources
        .filter((r) => re.test(r.path) && (!atLoad || r.atLoad))
        .reduce((sum, r) => sum + r.bytes, 0);
    return {
      html: read.html,
      js: of(/\.m?js$/, true),
      jsSettled: of(/\.m?js$/),
      css: of(/\.css$/),
      total: read.html + of(/./),
      elements: read.elements,
      resources: read.resources,
    };
  } finally {
    await context.close();
  }
}
