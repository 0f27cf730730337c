// axe-core on every page, in both themes: no serious or critical violation (every rule in the light
// theme; in the dark one, at the same width, the rules that read colours). Also the skip link and
// visible focus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AxeBuilder } from '@axe-core/playwright';
import { COURSE_ROUTES } from '../../scripts/site.ts';
import { axeIn, useCourse } from '../support/site.ts';

const course = useCourse();

for (const colorScheme of ['light', 'dark'] as const) {
  test(`axe: no serious or critical violation on any page (${colorScheme} theme)`, async () => {
    const context = await course.browser.newContext({ colorScheme, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const found: string[] = [];
    for (const route of [...COURSE_ROUTES, '/protocol/the-owned-keyspace/#part-reserve']) {
      await page.goto(course.site.url + route);
      const results = await axeIn(page, colorScheme).analyze();
      for (const v of results.violations) {
        if (v.impact === 'serious' || v.impact === 'critical') {
          found.push(`${route} [${v.impact}] ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        }
      }
    }
    await context.close();
    assert.deepEqual(found, []);
  });
}

test('axe with the theme picked by hand (dark on a light system)', async () => {
  const context = await course.browser.newContext({ colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(course.site.url + '/protocol/the-owned-keyspace/hashtag-and-slot/');
  await page.getByLabel('Theme').selectOption('dark');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => v.id),
    [],
  );
  await context.close();
});

test('the skip link is the first tab stop and moves focus to the content; focus is visible', async () => {
  const page = await course.browser.newPage();
  await page.goto(course.site.url + '/protocol/the-owned-keyspace/');
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  assert.equal(await skip.evaluate((el) => el === document.activeElement), true);
  assert.ok((await skip.boundingBox())!.y >= 0, 'the skip link shows when focused');
  await page.keyboard.press('Enter');
  assert.ok(page.url().endsWith('#content'));
  await page.keyboard.press('Tab');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  assert.notEqual(outline, 'none', 'the focused element has an outline');
  await page.close();
});
