// What a reader saw wrong on a 360 px phone, each checked at 360 and 1280 px in both themes: copy
// buttons over code, keys broken inside a word ("schedul/e"), key inputs too narrow for their key, the
// step selects out of line, an empty gap under the explorer's status; and, without JavaScript, an
// explorer that says what to do instead of "Connecting…" forever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openPage, useCourse, reachExplorer } from '../support/site.ts';

const course = useCourse();
const MODULE = '/protocol/the-owned-keyspace/';
const GRAMMAR = `${MODULE}braced-grammar/`;

async function open(route: string, width: number, colorScheme: 'light' | 'dark'): Promise<Page> {
  const page = await openPage(course.browser, course.site.url + route, { width, colorScheme });
  await reachExplorer(page);
  return page;
}

for (const width of [360, 1280]) {
  for (const scheme of ['light', 'dark'] as const) {
    test(`at ${width} px (${scheme}): copy buttons, keys, key inputs, step selects, status line`, async () => {
      const page = await open(MODULE, width, scheme);
      // a copy button never covers a character of its block's code
      const overlaps = await page.evaluate(() => {
        const hits: string[] = [];
        for (const block of document.querySelectorAll('.code-block')) {
          const b = block.querySelector('.copy-button')!.getBoundingClientRect();
          const range = document.createRange();
          range.selectNodeContents(block.querySelector('pre')!);
          for (const r of range.getClientRects()) {
            if (r.width && r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top)
              hits.push(block.textContent!.slice(0, 40));
          }
        }
        return hits;
      });
      assert.ok((await page.locator('.code-block').count()) >= 2, 'the fenced blocks have copy buttons');
      assert.deepEqual(overlaps, []);

      // the status line is as tall as its text: no empty gap under it
      await page.locator('[data-explorer][data-sandbox="up"]').waitFor();
      const gap = await page.evaluate(() => {
        const status = document.querySelector('.xp-status')!;
        const text = status.querySelector('[data-status-text]')!.getBoundingClientRect();
        const lineHeight = parseFloat(getComputedStyle(status).lineHeight);
        return (status.getBoundingClientRect().height - text.height) / lineHeight;
      });
      assert.ok(gap < 0.5, `status line has ${gap.toFixed(2)} empty lines under its text`);

      // the step selects start at one x, whatever the step number's width ("Step 9", "Step 10")
      const section = page.locator('[data-experiment="two-executors"]');
      while ((await section.locator('select[name="step"]').count()) < 11)
        await section.getByRole('button', { name: 'Add a step' }).click();
      // each select's offset from its own row's left edge, so columns at 1280 px compare too
      const offsets = await section
        .locator('select[name="step"]')
        .evaluateAll((selects) =>
          selects.map((s) =>
            Math.round(s.getBoundingClientRect().left - s.closest('li')!.getBoundingClientRect().left),
          ),
        );
      assert.equal(new Set(offsets).size, 1, `select offsets ${offsets}`);
      await page.close();
    });

    test(`at ${width} px (${scheme}): keys break only after ':' and key inputs show their whole key`, async () => {
      const page = await open(GRAMMAR, width, scheme);
      await page.locator('[data-explorer][data-sandbox="up"]').waitFor();
      // every line break inside a listed key falls just after a ':' (each character's line read from
      // its own box), so no segment is split
      const { keys, split } = await page.evaluate(() => {
        const listed = [...document.querySelectorAll('.xp-key-list .xp-key')];
        const split: string[] = [];
        for (const key of listed) {
          const walker = document.createTreeWalker(key, NodeFilter.SHOW_TEXT);
          const chars: { char: string; top: number }[] = [];
          for (let node = walker.nextNode(); node; node = walker.nextNode())
            for (let i = 0; i < node.textContent!.length; i += 1) {
              const range = document.createRange();
              range.setStart(node, i);
              range.setEnd(node, i + 1);
              chars.push({ char: node.textContent![i]!, top: Math.round(range.getBoundingClientRect().top) });
            }
          for (let i = 1; i < chars.length; i += 1)
            if (chars[i]!.top > chars[i - 1]!.top + 2 && chars[i - 1]!.char !== ':')
              split.push(
                `${key.textContent} before "${chars
                  .slice(i)
                  .map((c) => c.char)
                  .join('')}"`,
              );
        }
        return { keys: listed.length, split };
      });
      assert.ok(keys > 10, `${keys} keys listed`);
      assert.deepEqual(split, [], 'a key breaks only after a colon, never inside a segment');
      const cut = await page
        .locator('[data-experiment="layout"] input[name="key"]')
        .evaluateAll((inputs) =>
          (inputs as HTMLInputElement[]).filter((i) => i.scrollWidth > i.clientWidth + 1).map((i) => i.value),
        );
      assert.deepEqual(cut, [], 'each declared key of the exact call fits its input');
      await page.close();
    });
  }
}

test('without JavaScript the explorer points to the JSON API with a curl line, never "Connecting…"', async () => {
  const context = await course.browser.newContext({
    viewport: { width: 360, height: 900 },
    javaScriptEnabled: false,
  });
  const page = await context.newPage();
  for (const route of [MODULE, GRAMMAR]) {
    await page.goto(course.site.url + route);
    const explorer = page.locator('[data-explorer]').first();
    const text = await explorer.innerText();
    assert.doesNotMatch(text, /Connecting/);
    assert.match(text, /JavaScript is off/);
    assert.match(
      text,
      /curl -s \$SITE\/api\/experiments\/keys -H 'content-type: application\/json' -d '\{"queue":"orders"\}'/,
    );
    assert.match(
      text,
      /Set SITE to this page’s own origin, the scheme, host and port your address bar shows/,
    );
    assert.doesNotMatch(text, /localhost:4321/);
    assert.doesNotMatch(text, /curl -s http:\/\/localhost:4321/);
    assert.ok(await explorer.getByRole('link', { name: 'GET /api/experiments' }).isVisible());
  }
  await context.close();
  // with JavaScript the message is not shown
  const page2 = await open(MODULE, 360, 'light');
  assert.equal(await page2.locator('.xp-nojs').first().isVisible(), false);
  await page2.close();
});

test('printed, a page keeps its text and code: no search, nav, theme or empty forms; link addresses shown; code not cut', async () => {
  const page = await open(MODULE, 1280, 'light');
  await page.emulateMedia({ media: 'print' });
  for (const selector of [
    '[data-search]',
    '[data-theme-select]',
    '.course-nav',
    '.toc',
    '.xp fieldset',
    '.copy-button',
  ])
    assert.equal(await page.locator(selector).first().isVisible(), false, `${selector} is not printed`);
  const after = await page
    .locator('.prose a[href^="/protocol/"]')
    .first()
    .evaluate((a) => getComputedStyle(a, '::after').content);
  assert.match(after, /\(.*\/protocol\//, 'a link prints its address');
  const cut = await page.evaluate(() =>
    [...document.querySelectorAll('.prose pre')]
      .filter((pre) => pre.scrollWidth > pre.clientWidth + 1)
      .map((pre) => pre.textContent!.slice(0, 40)),
  );
  assert.deepEqual(cut, [], 'no code line runs past its box');
  assert.ok(await page.locator('.source-panel pre').first().isVisible(), 'source panels print');
  await page.close();
});
