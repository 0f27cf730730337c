// The part picker on the module page: by mouse, by keyboard, and with JavaScript disabled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useCourse } from '../support/site.ts';

const MODULE = '/protocol/the-owned-keyspace/';
const PARTS = ['grammar', 'hashtag', 'reserve'];
const course = useCourse();

async function shown(page: Page): Promise<string[]> {
  const out: string[] = [];
  for (const id of PARTS) if (await page.locator(`#part-${id}`).isVisible()) out.push(id);
  return out;
}

test('with JavaScript: ARIA tabs, and a click picks a part', async () => {
  const page = await course.browser.newPage();
  await page.goto(course.site.url + MODULE);
  const tablist = page.getByRole('tablist', { name: 'The keyspace · choose a part' });
  await tablist.waitFor();
  assert.equal(await page.getByRole('tab').count(), 3);
  assert.equal(await page.getByRole('tab', { selected: true }).getAttribute('id'), 'tab-grammar');
  assert.deepEqual(await shown(page), ['grammar']);
  assert.equal(await page.getByRole('tabpanel').getAttribute('aria-labelledby'), 'tab-grammar');

  await page.getByRole('tab', { name: /The hashtag & slot/ }).click();
  assert.equal(await page.getByRole('tab', { selected: true }).getAttribute('id'), 'tab-hashtag');
  assert.deepEqual(await shown(page), ['hashtag']);
  assert.ok(page.url().endsWith('#part-hashtag'));
  assert.match(await page.locator('#part-hashtag').innerText(), /12739/);
  // the panel names its function and links its dive
  assert.ok(
    await page.locator('#part-hashtag a[href="/protocol/the-owned-keyspace/hashtag-and-slot/"]').isVisible(),
  );

  await page.getByRole('tab', { name: /The reserve/ }).click();
  assert.deepEqual(await shown(page), ['reserve']);
  assert.match(await page.locator('#part-reserve').innerText(), /\{emq\}:version/);
  await page.close();
});

test('with JavaScript: the keyboard moves between parts (arrows, Home, End) with roving focus', async () => {
  const page = await course.browser.newPage();
  await page.goto(course.site.url + MODULE);
  await page.getByRole('tablist').waitFor();
  await page.locator('#tab-grammar').focus();
  const focused = () => page.evaluate(() => document.activeElement?.id);
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), 'tab-hashtag');
  assert.deepEqual(await shown(page), ['hashtag']);
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), 'tab-reserve');
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), 'tab-grammar', 'wraps around');
  await page.keyboard.press('End');
  assert.equal(await focused(), 'tab-reserve');
  assert.equal(await page.locator('#tab-reserve').getAttribute('aria-selected'), 'true');
  assert.equal(await page.locator('#tab-grammar').getAttribute('tabindex'), '-1');
  await page.keyboard.press('Home');
  assert.deepEqual(await shown(page), ['grammar']);
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await shown(page), ['reserve']);
  // Tab leaves the tab list for the selected panel
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'part-reserve');
  await page.close();
});

test('with JavaScript: a link to #part-reserve opens on that part', async () => {
  const page = await course.browser.newPage();
  await page.goto(course.site.url + MODULE + '#part-reserve');
  await page.getByRole('tablist').waitFor();
  assert.deepEqual(await shown(page), ['reserve']);
  await page.close();
});

test('without JavaScript: the parts are links to anchors and :target shows the picked one', async () => {
  const context = await course.browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(course.site.url + MODULE);
  assert.equal(await page.getByRole('tablist').count(), 0, 'no tab roles without the script behind them');
  assert.deepEqual(await shown(page), ['grammar']);
  const hashtag = page.locator('#tab-hashtag');
  assert.equal(await hashtag.getAttribute('href'), '#part-hashtag');
  await hashtag.click();
  assert.ok(page.url().endsWith('#part-hashtag'));
  assert.deepEqual(await shown(page), ['hashtag']);
  await page.locator('#tab-reserve').click();
  assert.deepEqual(await shown(page), ['reserve']);
  // and by keyboard: Tab to a part link, Enter follows it
  await page.goto(course.site.url + MODULE);
  await page.locator('#tab-hashtag').focus();
  await page.keyboard.press('Enter');
  assert.deepEqual(await shown(page), ['hashtag']);
  await context.close();
});
