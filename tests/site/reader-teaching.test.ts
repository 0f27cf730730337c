// What a newcomer meets, in Chromium at 360 and 1280 px in both themes: every opening plain (no glossary
// term in a description, none in a first paragraph before it is defined in place); an inline definition
// opened by keyboard focus and by a tap, closed by Escape, inside the screen; exercise feedback that
// never gives the answer, a hint of its own, "Show me" announced and arriving after the second miss;
// progress marks in the course nav that shift nothing, the module's summary and its reset; and a console
// whose refusals name the form that would run.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { COURSE_ROUTES } from '../../scripts/site.ts';
import { GLOSSARY } from '../../src/lib/glossary.ts';
import { ANSWERS } from '../../src/components/console/exercise-answers.ts';
import { EXERCISES } from '../../src/components/console/exercises.ts';
import { useExplorer } from '../support/explorer.ts';
import { openPage, reach, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const chromium = useBrowser();
const MODULE = '/protocol/the-owned-keyspace/';
const GRAMMAR = `${MODULE}braced-grammar/`;
const HASHTAG = `${MODULE}hashtag-and-slot/`;
const RESERVE = `${MODULE}reserve/`;
const TERMS = GLOSSARY.map((t) => ({ id: t.id, source: t.names.source, flags: t.names.flags }));

const SCREENS = [
  [360, 'dark'],
  [360, 'light'],
  [1280, 'light'],
  [1280, 'dark'],
] as const;

async function noSidewaysScroll(page: Page, where: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(overflow <= 0, `${where}: the page scrolls sideways by ${overflow} px`);
}

test('every opening is plain: no term in a description, none in a first paragraph before it is defined there', async () => {
  const page = await openPage(chromium.browser, explorer.site.url + '/');
  for (const route of COURSE_ROUTES) {
    await page.goto(explorer.site.url + route);
    const description = (await page.locator('meta[name="description"]').getAttribute('content'))!;
    assert.equal((await page.locator('.lede').innerText()).trim(), description, `${route}: the lede`);
    for (const term of TERMS)
      assert.doesNotMatch(
        description,
        new RegExp(term.source, term.flags),
        `${route}'s description names ${term.id}`,
      );
    // The first paragraph's text in reading order, each piece said to be inside a defined term or not.
    const early = await page
      .locator('main article.prose > p')
      .first()
      .evaluate((p, terms) => {
        const found: string[] = [];
        const seen = new Set<string>();
        const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const parent = node.parentElement!;
          if (parent.closest('.term-def')) continue;
          const defined = parent.closest('.term-word') !== null;
          for (const term of terms) {
            if (seen.has(term.id) || !new RegExp(term.source, term.flags).test(node.textContent!)) continue;
            seen.add(term.id);
            if (!defined) found.push(term.id);
          }
        }
        return found;
      }, TERMS);
    assert.deepEqual(early, [], `${route}: the first paragraph names these before defining them`);
  }
  await page.close();
});

test('the glossary is one source: the home page lists every term of the data module, and each definition in place is its line', async () => {
  const page = await openPage(chromium.browser, explorer.site.url + '/');
  const listed = await page.$$eval('dfn[id^="glossary-"]', (ds) =>
    ds.map((d) => d.id.slice('glossary-'.length)),
  );
  assert.deepEqual(
    listed,
    GLOSSARY.map((t) => t.id),
  );
  await page.goto(explorer.site.url + HASHTAG);
  for (const def of await page.locator('.term-def').all()) {
    const id = (await def.getAttribute('id'))!.slice('term-'.length);
    const term = GLOSSARY.find((t) => t.id === id)!;
    assert.equal(
      (await def.textContent())!.replace(/\s+/g, ' ').trim(),
      `${term.term}: ${term.short.replaceAll('`', '')}`,
    );
  }
  // without JavaScript the word is a link to the glossary entry
  const nojs = await openPage(chromium.browser, explorer.site.url + HASHTAG, { javaScriptEnabled: false });
  assert.equal(await nojs.locator('.term-word').first().getAttribute('href'), '/#glossary-slot');
  await nojs.close();
  // the twin, and so the search index, carries the glossary from the same module
  const twin = await (await fetch(explorer.site.url + '/index.md')).text();
  for (const term of GLOSSARY)
    assert.ok(
      twin.includes(`- <dfn id="glossary-${term.id}">${term.term}</dfn>:`),
      `the home twin lists ${term.term}`,
    );
  const search = (await (await fetch(explorer.site.url + '/search-index.json')).json()) as Array<{
    text: string;
  }>;
  assert.ok(
    search.some((entry) => entry.text.includes(GLOSSARY[0]!.text.slice(0, 40))),
    'search finds the glossary',
  );
  await page.close();
});

for (const [width, colorScheme] of SCREENS) {
  test(`an inline definition at ${width} px (${colorScheme}): keyboard focus opens it, Escape closes it, inside the screen`, async () => {
    const page = await openPage(chromium.browser, explorer.site.url + HASHTAG, { width, colorScheme });
    const word = page.locator('.term-word').first();
    const def = page.locator('.term-def').first();
    assert.equal(await def.isVisible(), false);
    // by keyboard: Tab from the markdown link until the first term has the focus
    await page.locator('.twin-link a').focus();
    for (let i = 0; i < 60 && !(await word.evaluate((el) => el === document.activeElement)); i += 1)
      await page.keyboard.press('Tab');
    assert.equal(await word.evaluate((el) => el === document.activeElement), true, 'Tab reaches the term');
    await def.waitFor({ state: 'visible' });
    assert.match(await def.innerText(), /^Slot: /);
    assert.equal(await word.getAttribute('aria-describedby'), await def.getAttribute('id'));
    const box = (await def.boundingBox())!;
    assert.ok(
      box.x >= 0 && box.x + box.width <= width,
      `the definition is inside the screen: ${JSON.stringify(box)}`,
    );
    await noSidewaysScroll(page, 'a definition open');
    const axe = await new AxeBuilder({ page }).include('.term').analyze();
    assert.deepEqual(
      axe.violations.map((v) => v.id),
      [],
    );
    await page.keyboard.press('Escape');
    await def.waitFor({ state: 'hidden' });
    await page.close();
  });

  test(`an inline definition at ${width} px (${colorScheme}) by touch: a tap opens it in place, a second tap follows the link`, async () => {
    const context = await chromium.browser.newContext({
      viewport: { width, height: 800 },
      colorScheme,
      hasTouch: true,
      isMobile: width < 400,
    });
    const page = await context.newPage();
    await page.goto(explorer.site.url + GRAMMAR);
    const word = page.locator('.term-word[href="/#glossary-hashtag"]');
    const def = page.locator('#term-hashtag');
    await word.scrollIntoViewIfNeeded();
    await word.tap();
    await def.waitFor({ state: 'visible' });
    assert.equal(new URL(page.url()).pathname, GRAMMAR, 'the tap stayed on the page');
    const box = (await def.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= width, `inside the screen: ${JSON.stringify(box)}`);
    // a tap elsewhere closes it
    await page.locator('h1').tap();
    await def.waitFor({ state: 'hidden' });
    await word.tap();
    await def.waitFor({ state: 'visible' });
    await word.tap();
    await page.waitForURL(/\/#glossary-hashtag$/);
    await context.close();
  });
}

/** Types an answer into an exercise (or picks a choice) and waits for the verdict. */
async function answer(page: Page, id: string, text: string): Promise<string> {
  const item = page.locator(`[data-exercise="${id}"]`);
  if ((await item.locator('input[type="radio"]').count()) > 0)
    await item.getByLabel(text, { exact: true }).check();
  else await item.locator('input').fill(text);
  const status = item.getByRole('status');
  await status.evaluate((el) => (el.textContent = ''));
  await item.getByRole('button', { name: 'Check' }).click();
  await status.filter({ hasText: /^(Right|Not yet)\./ }).waitFor();
  return status.innerText();
}

/** A wrong answer for each exercise: another choice, or a text that is none of the right ones. */
const WRONG: Record<string, string> = {
  'slot-low-queue': 'orders',
  'reserve-shared-slot': 'orders',
  'reserve-slot': '1234',
};
function wrongAnswer(id: string, choices?: string[]): string {
  if (choices) return choices.find((c) => c !== ANSWERS[id]!.answer)!;
  return WRONG[id] ?? 'x';
}

for (const [width, colorScheme] of [SCREENS[0], SCREENS[2]]) {
  test(`exercises at ${width} px (${colorScheme}): no miss shows the answer; the hint is its own; "Show me" is announced and comes after the second miss`, async () => {
    for (const [route, exercises] of Object.entries(EXERCISES)) {
      const page = await openPage(chromium.browser, explorer.site.url + route, { width, colorScheme });
      // the exercises' code loads once the reader nears them (when-needed.ts)
      await reach(page, '.ex-panel');
      await page.locator('emq-exercises button[type="submit"]:not([disabled])').first().waitFor();
      assert.match(
        await page.locator('.ex-how').innerText(),
        /after the second wrong try, a “Show me” button/,
      );
      for (const exercise of exercises) {
        const item = page.locator(`[data-exercise="${exercise.id}"]`);
        const hint = item.locator('[data-hint]');
        assert.equal(await hint.isVisible(), false, `${exercise.id}: no hint before a try`);
        const verdict = await answer(page, exercise.id, wrongAnswer(exercise.id, exercise.choices));
        assert.match(verdict, /^Not yet\./, exercise.id);
        assert.ok(
          !verdict.includes(ANSWERS[exercise.id]!.answer),
          `${exercise.id}: the miss says the answer: ${verdict}`,
        );
        assert.doesNotMatch(verdict, /Hint:|answered null|\d+–\d+|expected '/, `${exercise.id}: ${verdict}`);
        assert.equal(await hint.isVisible(), true, `${exercise.id}: the hint shows`);
        assert.equal((await hint.innerText()).trim(), `Hint: ${ANSWERS[exercise.id]!.hint}`);
        assert.equal(await item.getByRole('button', { name: 'Show me' }).isVisible(), false, exercise.id);
      }
      // the second miss brings "Show me"
      const first = exercises[0]!;
      await answer(page, first.id, wrongAnswer(first.id, first.choices));
      await page.locator(`[data-exercise="${first.id}"]`).getByRole('button', { name: 'Show me' }).waitFor();
      await noSidewaysScroll(page, route);
      await page.close();
    }
  });

  test(`progress at ${width} px (${colorScheme}): a mark per page in the course nav that shifts nothing, the module's summary, and its reset`, async () => {
    const page = await openPage(chromium.browser, explorer.site.url + GRAMMAR, { width, colorScheme });
    // the exercises' code loads once the reader nears them (when-needed.ts)
    await reach(page, '.ex-panel');
    await page.locator('emq-exercises button[type="submit"]:not([disabled])').first().waitFor();
    await page.evaluate(() => {
      (window as any).shifts = 0;
      new PerformanceObserver((list) => {
        // as CLS counts them: a shift within 500 ms of the reader's own input is theirs
        for (const entry of list.getEntries() as any[])
          if (!entry.hadRecentInput) (window as any).shifts += entry.value;
      }).observe({ type: 'layout-shift', buffered: true });
    });
    // the mark says its count, and to a screen reader what it counts
    const mark = page.locator(`.course-nav a[href="${GRAMMAR}"] [data-mark]`);
    assert.equal(await mark.textContent(), '0/3 exercises solved');
    const link = page.locator(`.course-nav a[href="${GRAMMAR}"]`);
    // the link's size (at 360 px the nav is under the page, which the verdict lengthens)
    const box = () =>
      link.evaluate((el) => {
        const r = el.getBoundingClientRect();
        return { width: r.width, height: r.height };
      });
    const before = await box();
    assert.match(await answer(page, 'grammar-schedule-key', 'emq:{billing}:schedule'), /^Right\./);
    assert.equal(await mark.textContent(), '1/3 exercises solved');
    assert.deepEqual(await box(), before, 'the mark moved its link');
    // the home page has no exercises, so no mark
    assert.equal(await page.locator('.course-nav a[href="/"] [data-mark]').count(), 0);

    // across pages: the module's summary on its last page, with links to the rest
    await page.goto(explorer.site.url + RESERVE);
    // the exercises' code loads once the reader nears them (when-needed.ts)
    await reach(page, '.ex-panel');
    await page.locator('emq-exercises button[type="submit"]:not([disabled])').first().waitFor();
    assert.equal(
      await page.locator(`.course-nav a[href="${GRAMMAR}"] [data-mark]`).textContent(),
      '1/3 exercises solved',
    );
    const summary = page.locator('.ex-summary');
    const total = Object.values(EXERCISES).flat().length;
    assert.match(await summary.innerText(), new RegExp(`1 of ${total} solved in the whole module`));
    assert.match(
      await summary.getByRole('link', { name: 'The braced grammar' }).locator('..').innerText(),
      /1 of 3 solved/,
    );
    assert.equal(
      await summary.getByRole('link', { name: 'The owned keyspace' }).getAttribute('href'),
      `${MODULE}#check-your-understanding`,
    );
    await summary.getByRole('button', { name: 'Forget my answers' }).click();
    assert.match(await summary.innerText(), new RegExp(`0 of ${total} solved in the whole module`));
    assert.equal(
      await page.locator(`.course-nav a[href="${GRAMMAR}"] [data-mark]`).textContent(),
      '0/3 exercises solved',
    );
    // and it stays forgotten on the page it was solved on
    await page.goto(explorer.site.url + GRAMMAR);
    // the exercises' code loads once the reader nears them (when-needed.ts)
    await reach(page, '.ex-panel');
    await page.locator('emq-exercises button[type="submit"]:not([disabled])').first().waitFor();
    assert.equal(await page.locator('[data-progress]').innerText(), '0 of 3 solved in this browser.');
    assert.doesNotMatch(await page.locator('.ex-panel').innerText(), /Solved before/);
    const shifts = await page.evaluate(() => (window as any).shifts ?? 0);
    assert.equal(shifts, 0, 'layout shift');
    await noSidewaysScroll(page, 'progress');
    await page.close();
  });
}

for (const [width, colorScheme] of SCREENS) {
  test(`the console at ${width} px (${colorScheme}) says what to do: the allowed form closest to the line, and what a (nil) means`, async () => {
    const page = await openPage(chromium.browser, explorer.site.url + RESERVE, { width, colorScheme });
    const panel = page.locator('.cn-panel');
    // the console's code loads once the reader nears it (when-needed.ts)
    await reach(page, 'emq-console');
    await panel.locator('button[type="submit"]:not([disabled])').waitFor();
    await panel
      .getByLabel('Commands, one per line')
      .fill(
        [
          'SET emq:{mira}:meta hello',
          'GET foo',
          'SET {emq}:version echomq:4.0.0 NX',
          'HMSET emq:{mira}:meta a b',
        ].join('\n'),
      );
    await panel.getByRole('button', { name: 'Run' }).click();
    await panel.locator('.cn-line').nth(3).waitFor();
    const [set, get, nx, hmset] = await panel.locator('.cn-line').all();
    assert.match(
      await set!.innerText(),
      /emq:\{mira\}:meta is a hash: write it with HSET emq:\{mira\}:meta <field> <value>, read it with HGETALL emq:\{mira\}:meta/,
    );
    assert.match(
      await get!.innerText(),
      /"foo" is not a key the console reads: it reads only keys that start with emq: or \{emq\}:, such as \{emq\}:version/,
    );
    assert.equal((await nx!.locator('.cn-reply').innerText()).trim(), '(nil)');
    assert.equal(
      (await nx!.locator('.cn-reading').innerText()).trim(),
      '{emq}:version already held a value, so NX wrote nothing; GET {emq}:version shows it',
    );
    assert.match(await hmset!.innerText(), /use HSET, which takes several field value pairs/);
    await noSidewaysScroll(page, 'the console');
    const axe = await new AxeBuilder({ page }).include('.cn-panel').analyze();
    assert.deepEqual(
      axe.violations.map((v) => v.id),
      [],
    );
    await page.close();
  });
}
