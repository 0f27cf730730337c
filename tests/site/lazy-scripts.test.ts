// The page weight budget (issue 26), in Chromium at Lighthouse's phone size: on every course page (and
// the 404) the explorer's, the console's and the exercises' code is not requested at load, no script is
// fetched twice (under one name or two), and the JS at load stays within 8 KB brotli; then each loads
// when the reader needs it and works — the explorer scrolled to, the console focused, the exercises
// scrolled to — and a form sent before its code has arrived is sent once it has, never a page reload.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { COURSE_ROUTES } from '../../scripts/site.ts';
import { PHONE } from '../../scripts/load-bytes.ts';
import { useExplorer } from '../support/explorer.ts';
import { reachExplorer, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const chromium = useBrowser();
const GRAMMAR = '/protocol/the-owned-keyspace/braced-grammar/';
const NOT_FOUND = '/no-such-page/';
/** 8 KB of brotli: the budget for the JS a course page loads before the reader does anything. */
const JS_AT_LOAD_BUDGET = 8 * 1024;

/** The custom elements each part's code defines: its module is recognised by what it does, not its name. */
const PARTS = {
  explorer: /^emq-(explorer|[\w-]+-experiment)$/,
  console: /^emq-console$/,
  exercises: /^emq-exercises$/,
} as const;
type Part = keyof typeof PARTS;

/** A phone page at `route` whose requests are all kept; loaded and settled, the reader not moving. */
async function openQuiet(route: string): Promise<{ page: Page; requests: Request[] }> {
  const context = await chromium.browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  page.on('close', () => void context.close().catch(() => {}));
  const requests: Request[] = [];
  page.on('request', (r) => requests.push(r));
  await page.goto(explorer.site.url + route, { waitUntil: 'load' });
  if (route !== '/' && route !== NOT_FOUND)
    await page.locator('[data-explorer]:not([data-sandbox="loading"])').waitFor();
  await page.waitForLoadState('networkidle');
  return { page, requests };
}

const scriptsOf = (requests: Request[]) => requests.filter((r) => /\.m?js$/.test(new URL(r.url()).pathname));
const bodyOf = async (r: Request) => (await (await r.response())?.text()) ?? '';

/** The parts whose code the scripts requested so far hold (each defines its elements). */
async function partsLoaded(requests: Request[]): Promise<Set<Part>> {
  const parts = new Set<Part>();
  for (const r of scriptsOf(requests))
    for (const [, name] of (await bodyOf(r)).matchAll(/customElements\.define\(\s*[`'"]([\w-]+)/g))
      for (const part of Object.keys(PARTS) as Part[]) if (PARTS[part].test(name!)) parts.add(part);
  return parts;
}

test(`at load no course page requests the explorer's, console's or exercises' code, nor a script twice, and its JS is at most ${JS_AT_LOAD_BUDGET} bytes of brotli`, async () => {
  const found: string[] = [];
  for (const route of [...COURSE_ROUTES, NOT_FOUND]) {
    const { page, requests } = await openQuiet(route);
    for (const part of await partsLoaded(requests)) found.push(`${route}: the ${part}'s code at load`);
    const scripts = scriptsOf(requests);
    const paths = scripts.map((r) => new URL(r.url()).pathname);
    for (const path of new Set(paths.filter((p, i) => paths.indexOf(p) !== i)))
      found.push(`${route}: ${path} fetched twice`);
    // the same bytes under two names (two components' entries that only import one module) is twice too
    const bodies = new Map<string, string>();
    for (const r of scripts) {
      const body = await bodyOf(r);
      const twin = bodies.get(body);
      if (twin !== undefined && twin !== r.url()) found.push(`${route}: ${r.url()} is ${twin} again`);
      bodies.set(body, r.url());
    }
    // the brotli bytes of every script requested by the load event, as the page's resource timing says
    const js = await page.evaluate(() => {
      const end = (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd;
      return (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        .filter((e) => /\.m?js$/.test(new URL(e.name).pathname) && e.startTime <= end)
        .reduce((sum, e) => sum + e.encodedBodySize, 0);
    });
    if (js > JS_AT_LOAD_BUDGET) found.push(`${route}: ${js} bytes of JS at load`);
    await page.close();
  }
  assert.deepEqual(found, []);
});

test('scrolled to, the explorer loads its code and runs; focused, the console does; the exercises too', async () => {
  const { page, requests } = await openQuiet(GRAMMAR);
  assert.deepEqual([...(await partsLoaded(requests))], []);
  await reachExplorer(page, '[data-sandbox="up"]');
  assert.deepEqual([...(await partsLoaded(requests))], ['explorer'], 'the explorer code, once scrolled to');
  const keys = page.locator('[data-experiment="keys"]');
  await keys.getByRole('button', { name: 'Enqueue on the sandbox' }).click();
  await keys.locator('[data-result]', { hasText: 'emq:{orders}:' }).first().waitFor();

  await page.locator('emq-console textarea').focus();
  await page.locator('emq-console button[type="submit"]:not([disabled])').waitFor();
  assert.ok((await partsLoaded(requests)).has('console'), 'the console code, once focused');
  await page.locator('.cn-panel').getByRole('button', { name: 'Run' }).click();
  await page.locator('.cn-panel .cn-line').first().waitFor();

  // the exercises sit just above the console: near the viewport by now, so loaded and wired
  assert.ok((await partsLoaded(requests)).has('exercises'), 'the exercises code, once near');
  await page.locator('emq-exercises button:not([disabled])').first().waitFor();
  await page.close();
});

test('a form sent before its code has arrived is sent once it has, and the page stays', async () => {
  const context = await chromium.browser.newContext({ viewport: PHONE });
  try {
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    // the explorer's module (as the build names it) waits until released
    let holding = 0;
    await context.route(/\/_astro\/explorer\.[\w-]+\.js$/, async (route) => {
      holding += 1;
      await held;
      await route.continue();
    });
    const page = await context.newPage();
    let navigations = 0;
    page.on('framenavigated', (frame) => frame === page.mainFrame() && (navigations += 1));
    await page.goto(explorer.site.url + GRAMMAR);
    const keys = page.locator('[data-experiment="keys"]');
    await page.locator('[data-explorer][data-sandbox="up"]').waitFor();
    // the island's button is there and enabled; its code is held back
    await keys.getByRole('button', { name: 'Enqueue on the sandbox' }).click();
    assert.equal(await page.locator('emq-explorer:defined').count(), 0, 'the code has not run yet');
    assert.equal(holding, 1, "the explorer's module was requested, and held");
    release();
    await keys.locator('[data-result]', { hasText: 'emq:{orders}:' }).first().waitFor();
    assert.equal(navigations, 1, 'no reload: the one navigation is the first load');
  } finally {
    await context.close();
  }
});
