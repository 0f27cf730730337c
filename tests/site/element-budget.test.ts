// The DOM budget (issue 26): every course page holds at most 800 elements, counted in Chromium at
// Lighthouse's phone size once the explorer's server island has arrived (the page as a reader has it
// after load, the reader not moving) — the figure bench/page-bytes.ts prints.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COURSE_ROUTES } from '../../scripts/site.ts';
import { PHONE } from '../../scripts/load-bytes.ts';
import { useCourse } from '../support/site.ts';

const course = useCourse();
/** Issue 26's budget: elements in a course page's DOM. */
const ELEMENT_BUDGET = 800;

/** The route's elements, once loaded, its island arrived (if it has an explorer) and the network quiet. */
async function elementsOf(route: string): Promise<number> {
  const context = await course.browser.newContext({ viewport: PHONE });
  try {
    const page = await context.newPage();
    await page.goto(course.site.url + route, { waitUntil: 'load' });
    if ((await page.locator('[data-explorer]').count()) > 0)
      await page.locator('[data-explorer]:not([data-sandbox="loading"])').first().waitFor();
    await page.waitForLoadState('networkidle');
    return await page.evaluate(() => document.getElementsByTagName('*').length);
  } finally {
    await context.close();
  }
}

test(`every course page holds at most ${ELEMENT_BUDGET} elements once its island has arrived`, async () => {
  const counts: Record<string, number> = {};
  for (const route of COURSE_ROUTES) counts[route] = await elementsOf(route);
  // a page is a few hundred elements at the least: a count far under that would be no page at all
  for (const [route, n] of Object.entries(counts)) assert.ok(n > 200, `${route}: only ${n} elements`);
  const over = Object.entries(counts).filter(([, n]) => n > ELEMENT_BUDGET);
  assert.deepEqual(over, [], `elements per page: ${JSON.stringify(counts)}`);
});
