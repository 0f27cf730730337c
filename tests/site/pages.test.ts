// Every route renders without a console error, a crawl from home finds no broken internal link, and no
// page scrolls sideways at 360 or 1280 px in either theme (scripts/screenshots.ts saves the pictures).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtRoutes, COURSE_ROUTES } from '../../scripts/site.ts';
import { VIEWPORTS, useCourse } from '../support/site.ts';

const course = useCourse();

test('the built site holds exactly the course routes', () => {
  assert.deepEqual(builtRoutes(), [...COURSE_ROUTES].sort());
});

test('every route renders with no console error and no failed request', async () => {
  const page = await course.browser.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning')
      problems.push(`${page.url()}: console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${page.url()}: ${e.message}`));
  page.on('requestfailed', (r) => {
    // Leaving a page cancels what it still had in flight (the favicon, say): that is not a failure.
    if (r.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`${page.url()}: request failed ${r.url()} (${r.failure()?.errorText})`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${page.url()}: ${r.status()} ${r.url()}`);
  });
  for (const route of COURSE_ROUTES) {
    const response = await page.goto(course.site.url + route);
    assert.equal(response?.status(), 200, route);
    assert.equal(await page.locator('h1').count(), 1, `${route} has one h1`);
    assert.ok((await page.title()).length > 0, `${route} has a title`);
  }
  await page.close();
  assert.deepEqual(problems, []);
});

test('a crawl from the home page reaches every route and finds no broken internal link or anchor', async () => {
  const page = await course.browser.newPage();
  const seen = new Set<string>();
  const queue = ['/'];
  const broken: string[] = [];
  while (queue.length) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const response = await page.request.get(course.site.url + path);
    if (response.status() !== 200) {
      broken.push(`${path} → ${response.status()}`);
      continue;
    }
    if (!(response.headers()['content-type'] ?? '').includes('text/html')) continue;
    await page.goto(course.site.url + path);
    const links = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
    for (const href of links) {
      const url = new URL(href);
      if (url.origin !== course.site.url) continue;
      if (url.hash && url.pathname === new URL(page.url()).pathname) {
        const id = decodeURIComponent(url.hash.slice(1));
        if ((await page.locator(`[id="${id}"]`).count()) === 0) broken.push(`${path}: no anchor ${url.hash}`);
      }
      if (url.hash && url.pathname !== new URL(page.url()).pathname) {
        // check the anchor on the target page
        const target = await page.request.get(course.site.url + url.pathname);
        const html = await target.text();
        if (!html.includes(`id="${decodeURIComponent(url.hash.slice(1))}"`))
          broken.push(`${path}: ${url.pathname} has no ${url.hash}`);
      }
      queue.push(url.pathname);
    }
  }
  await page.close();
  assert.deepEqual(broken, []);
  for (const route of COURSE_ROUTES) assert.ok(seen.has(route), `the crawl reached ${route}`);
  for (const extra of ['/llms.txt', '/llms-full.txt', '/protocol/the-owned-keyspace.md'])
    assert.ok(seen.has(extra), extra);
});

test('no course page scrolls sideways at 360 or 1280 px, light or dark', async () => {
  const wide: string[] = [];
  for (const viewport of Object.values(VIEWPORTS)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await course.browser.newContext({ viewport, colorScheme });
      const page = await context.newPage();
      for (const route of COURSE_ROUTES) {
        await page.goto(course.site.url + route);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        if (overflow > 0)
          wide.push(`${route} at ${viewport!.width} px, ${colorScheme}: ${overflow} px sideways`);
      }
      await context.close();
    }
  }
  assert.deepEqual(wide, []);
});
