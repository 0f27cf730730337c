// What a reader expects: search, the theme picker, copy buttons, previous/next, the table of
// contents, and no client JavaScript beyond the interactive parts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COURSE_ROUTES } from '../../scripts/site.ts';
import { useCourse } from '../support/site.ts';

const course = useCourse();

test('search finds a fact across the course and links to its section', async () => {
  const page = await course.browser.newPage();
  await page.goto(course.site.url + '/');
  const box = page.getByRole('searchbox', { name: 'Search the course' });
  await box.fill('CROSSSLOT');
  // CROSSSLOT is taught in the slot dive (and named on the module page): a result links into the dive
  const result = page
    .locator('.search-results a[href^="/protocol/the-owned-keyspace/hashtag-and-slot/"]')
    .first();
  await result.waitFor();
  assert.match((await result.getAttribute('href'))!, /^\/protocol\/the-owned-keyspace\/hashtag-and-slot\/#?/);
  assert.match(await page.locator('#search-status').innerText(), /result/);
  await result.click();
  await page.waitForURL(/hashtag-and-slot/);
  await box.fill('zzzqqq');
  await page.locator('#search-status', { hasText: 'No results' }).waitFor();
  await page.close();
});

test('search snippets show the text as rendered: no backticks, link targets or emphasis marks', async () => {
  const page = await course.browser.newPage();
  await page.goto(course.site.url + '/');
  await page.getByRole('searchbox', { name: 'Search the course' }).fill('queueKey grammar');
  const snippets = page.locator('.search-results a span');
  await snippets.first().waitFor();
  const texts = await snippets.allInnerTexts();
  assert.ok(texts.length > 0);
  for (const text of texts) assert.doesNotMatch(text, /`|\*\*|\]\(/, text);
  assert.ok(
    texts.some((t) => t.includes('emq:{q}:<type>')),
    'a key shows as its text',
  );
  await page.close();
});

test('search finds every glossary term, linking to its definition, with snippets cut between words', async () => {
  const index = (await (await fetch(course.site.url + '/search-index.json')).json()) as {
    heading: string;
    url: string;
    text: string;
  }[];
  const page = await course.browser.newPage();
  await page.goto(course.site.url + '/');
  const ids = await page.$$eval('dfn[id^="glossary-"]', (ds) =>
    ds.map((d) => [d.id, d.textContent!.trim()] as const),
  );
  assert.ok(ids.length >= 10, 'the glossary has its terms');
  for (const [id, term] of ids) {
    const entry = index.find((e) => e.url.endsWith(`#${id}`));
    assert.ok(entry, `${term} is in the index`);
    assert.equal(entry.heading, `Glossary: ${term}`);
    assert.doesNotMatch(entry.text, /<\/?dfn|<\/?a /, `${term}: text as rendered`);
  }
  // the last term of the glossary, beyond what an index cut at a fixed length held
  const box = page.getByRole('searchbox', { name: 'Search the course' });
  await box.fill('wire identity connector');
  const result = page.locator('.search-results a[href="/#glossary-connector"]');
  await result.waitFor();
  await box.fill('TRYAGAIN');
  await page.locator('.search-results a[href="/#glossary-tryagain"]').waitFor();
  const shown = await page.locator('.search-results a span').allInnerTexts();
  assert.ok(shown.length > 0);
  for (const snippet of shown) {
    const words = snippet.replace(/^… /, '').replace(/ …$/, '');
    const entry = index.find((e) => e.text.includes(words));
    assert.ok(entry, `a snippet is a piece of an entry: ${snippet}`);
    const at = entry.text.indexOf(words);
    assert.ok(at === 0 || entry.text[at - 1] === ' ', `starts on a word: ${snippet}`);
    const end = at + words.length;
    assert.ok(end === entry.text.length || entry.text[end] === ' ', `ends on a word: ${snippet}`);
  }
  await page.close();
});

test('the theme follows the system, and a picked theme sticks across pages', async () => {
  const context = await course.browser.newContext({ colorScheme: 'dark' });
  const page = await context.newPage();
  await page.goto(course.site.url + '/');
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(await bg(), 'rgb(14, 17, 23)', 'dark from the system');
  await page.getByLabel('Theme').selectOption('light');
  assert.equal(await bg(), 'rgb(248, 246, 241)');
  await page.goto(course.site.url + '/protocol/the-owned-keyspace/');
  assert.equal(await bg(), 'rgb(248, 246, 241)', 'the choice persists');
  assert.equal(await page.getByLabel('Theme').inputValue(), 'light');
  await page.getByLabel('Theme').selectOption('auto');
  assert.equal(await bg(), 'rgb(14, 17, 23)');
  await context.close();
});

test('copy buttons copy the exact source of a panel', async () => {
  const context = await course.browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  await page.goto(course.site.url + '/protocol/the-owned-keyspace/braced-grammar/');
  const panel = page.locator('figure.source-panel').first();
  const button = panel.getByRole('button', { name: /Copy/ });
  await button.click();
  await panel.getByRole('button', { name: 'Copied' }).waitFor();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, await panel.locator('pre code').evaluate((c) => c.textContent));
  // fenced blocks in the prose get one too
  assert.ok((await page.locator('.code-block > .copy-button').count()) >= 2);
  await context.close();
});

test('previous and next links follow the reading order; the TOC lists the headings', async () => {
  const page = await course.browser.newPage();
  for (let i = 0; i < COURSE_ROUTES.length; i++) {
    await page.goto(course.site.url + COURSE_ROUTES[i]);
    const prev = page.locator('.prev-next a[rel="prev"]');
    const next = page.locator('.prev-next a[rel="next"]');
    if (i > 0) assert.equal(await prev.getAttribute('href'), COURSE_ROUTES[i - 1]);
    else assert.equal(await prev.count(), 0);
    if (i < COURSE_ROUTES.length - 1) assert.equal(await next.getAttribute('href'), COURSE_ROUTES[i + 1]);
    else assert.equal(await next.count(), 0);
    const toc = await page.$$eval('nav.toc a', (as) => as.map((a) => a.getAttribute('href')));
    const ids = await page.$$eval('article.prose h2[id]:not(.explorer-title)', (hs) =>
      hs.map((h) => `#${h.id}`),
    );
    for (const id of ids) assert.ok(toc.includes(id), `${COURSE_ROUTES[i]}: the TOC lists ${id}`);
    assert.equal(
      await page.locator('.course-nav a[aria-current="page"]').getAttribute('href'),
      COURSE_ROUTES[i],
    );
  }
  await page.close();
});

test('no client JavaScript beyond the interactive parts, and little of it', async () => {
  const page = await course.browser.newPage();
  for (const route of COURSE_ROUTES) {
    let js = 0;
    // the live explorer's own script (src/components/explorer/explorer.ts) has a budget of its own below,
    // and so has the console panel's (src/components/console/console-panel.ts), on every page, and the
    // exercises' (exercises-panel.ts, fetched after the load event, only where a page has exercises)
    let island = 0;
    let consoleJs = 0;
    let exercisesJs = 0;
    page.on('response', async (r) => {
      if (r.request().resourceType() !== 'script') return;
      const size = (await r.body()).length;
      if (/\/ExplorerFallback\.astro_astro_type_script/.test(r.url())) island += size;
      else if (/\/ConsolePanel\.astro_astro_type_script/.test(r.url())) consoleJs += size;
      else if (/\/exercises-panel\.[\w-]+\.js$/.test(r.url())) exercisesJs += size;
      else js += size;
    });
    await page.goto(course.site.url + route);
    const inline = await page.$$eval('script:not([src])', (ss) =>
      ss.map((s) => s.textContent!.length).reduce((a, b) => a + b, 0),
    );
    assert.ok(js + inline < 16_000, `${route}: ${js + inline} bytes of JavaScript`);
    const hasExplorer = (await page.locator('[data-explorer-slot]').count()) > 0;
    assert.ok(hasExplorer || island === 0, `${route}: the explorer's script only where an explorer is`);
    // 24 KB until every experiment showed its wire (redis-cli replies, the commands, the proof) and kept
    // its inputs in the link, and the route experiment joined: 32 KB; 34 KB once every experiment checked
    // a queue name in the browser before sending it and answered a refused name the same way; 39 KB
    // with the slot migration drawn phase by phase and its two modes side by side (before compression)
    assert.ok(island < 39_000, `${route}: the explorer's script is ${island} bytes`);
    assert.ok(consoleJs > 0 && consoleJs < 8_000, `${route}: the console's script is ${consoleJs} bytes`);
    // every page's exercises and their checks, the verdicts' words and the progress kept in the browser
    assert.ok(exercisesJs < 10_000, `${route}: the exercises' script is ${exercisesJs} bytes`);
    const hasExercises = (await page.locator('emq-exercises').count()) > 0;
    assert.ok(hasExercises || exercisesJs === 0, `${route}: the exercises' script only where exercises are`);
    page.removeAllListeners('response');
  }
  await page.close();
});
