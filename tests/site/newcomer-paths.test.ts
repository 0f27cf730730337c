// The paths a newcomer takes through the pages, each held in Chromium at 360 and 1280 px where it shows:
// refusals that name their rule and say the allow-list once, broken quoting refused line by line,
// Ctrl+Enter, a wrapping console and an intro true of the target it runs on; a refused name answered
// wherever the page waits; one answer for a{b in every experiment; keys wrapped between segments; the two
// pickers one state, after a reload too; a compact two-executors block; exercises that hint and show;
// search by arrow keys and Enter; a run button disabled while its run is in flight; and a page without
// JavaScript that never says "waiting" and whose curl lines name the page's own origin.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { ERROR_CODES } from '../../server/contract/catalogue/error-codes.ts';
import { sectionFor } from '../../server/contract/console/error-course.ts';
import { useExplorer } from '../support/explorer.ts';
import { openPage, reach, reachExplorer, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const chromium = useBrowser();
const MODULE = '/protocol/the-owned-keyspace/';
const GRAMMAR = `${MODULE}braced-grammar/`;
const HASHTAG = `${MODULE}hashtag-and-slot/`;

async function open(
  route: string,
  width: number,
  javaScriptEnabled = true,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<Page> {
  const page = await openPage(chromium.browser, explorer.site.url + route, {
    width,
    javaScriptEnabled,
    colorScheme,
  });
  if (javaScriptEnabled) await page.locator('[data-explorer][data-sandbox="up"]').first().waitFor();
  return page;
}

async function noSidewaysScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
}

for (const width of [360, 1280]) {
  test(`console at ${width} px: each refusal names its rule, the allow-list is said once, a broken quote refuses its line only, Ctrl+Enter runs, the text wraps`, async () => {
    const page = await open(GRAMMAR, width);
    // The console's code loads once the reader nears it: typed before that, Ctrl+Enter would run nothing.
    await reach(page, 'emq-console');
    await page.locator('emq-console button[type="submit"]:not([disabled])').waitFor();
    const panel = page.locator('.cn-panel');
    const lines = panel.getByLabel('Commands, one per line');
    await lines.fill(
      ['SET emq:{orders}:meta hello', 'GTE emq:{orders}:pending', 'KEYS *', 'ECHO "half', 'PING'].join('\n'),
    );
    await lines.focus();
    await page.keyboard.press('Control+Enter');
    await panel.locator('.cn-line').nth(4).waitFor();
    const replies = await panel.locator('.cn-line .cn-reply').allInnerTexts();
    assert.match(
      replies[0]!,
      /SET: emq:\{orders\}:meta is a hash: write it with HSET emq:\{orders\}:meta <field> <value>, read it with HGETALL emq:\{orders\}:meta/,
    );
    assert.match(
      replies[1]!,
      /GTE is not allowed in the console \(not a command the console knows; did you mean GET\?\)/,
    );
    assert.match(replies[2]!, /KEYS is not allowed .*use SCAN/);
    assert.match(replies[3]!, /ECHO: unbalanced " quote opened at character 6.*the other lines run/);
    assert.equal(replies[4], '"PONG"');
    for (const reply of replies)
      assert.ok(reply.length < 220, `one line's answer is ${reply.length} characters`);
    // the allow-list once, under the lines
    const text = await panel.innerText();
    assert.equal(text.match(/Allowed:/g)?.length, 1);
    assert.match(
      await panel.locator('[data-allowed]').innerText(),
      /^Allowed: EMQ\.\* .*GET.*PING, ECHO, TIME$/,
    );
    // the textarea wraps: nothing of a line hides past its right edge
    await panel.getByRole('button', { name: /Reset/ }).click();
    const hidden = await lines.evaluate((el) => el.scrollWidth - el.clientWidth);
    assert.ok(hidden <= 0, `the console hides ${hidden} px of its lines`);
    assert.match(await lines.inputValue(), /emq:\{orderz\}/, 'the example’s point is in the text');
    await noSidewaysScroll(page);
    await page.close();
  });
}

test('"Explained in" goes to the section that explains the code: EMQWIRE to the hashtag dive’s cluster part', async () => {
  assert.equal(sectionFor('EMQWIRE')!.href, `${HASHTAG}#where-cluster-support-stops`);
  // every section the console links, for any code of the catalogue, exists on its page
  const explained = [...new Set(ERROR_CODES.map((row) => row.code))].filter((code) => sectionFor(code));
  assert.ok(explained.length >= 8, `the course explains codes (${explained.join(', ')})`);
  for (const code of explained) {
    const { href } = sectionFor(code)!;
    const [path, id] = href.split('#');
    const html = await (await fetch(explorer.site.url + path)).text();
    assert.ok(html.includes(`id="${id}"`), `${code}: ${href} has no such section`);
  }
  const page = await open(HASHTAG, 1280);
  const panel = page.locator('.cn-panel');
  await panel
    .getByLabel('Commands, one per line')
    .fill('EMQ.ENQUEUE 2 emq:{orders}:job:JOB0Nb1VTbfnu4 emq:{orders}:pending JOB0Nb1VTbfnu4 x');
  await panel.getByRole('button', { name: 'Run' }).click();
  const link = panel.locator('.cn-learn a');
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), `${HASHTAG}#where-cluster-support-stops`);
  await page.close();
});

const EXPERIMENTS: Array<{ route: string; name: string; queue: string; run?: string }> = [
  { route: GRAMMAR, name: 'keys', queue: 'Queue name', run: 'Enqueue on the sandbox' },
  { route: GRAMMAR, name: 'layout', queue: 'Queue name', run: 'Call EMQ.ENQUEUE' },
  { route: HASHTAG, name: 'slot', queue: 'Queue name' },
  { route: HASHTAG, name: 'route', queue: 'Queue name', run: 'Route it' },
  { route: MODULE, name: 'two-executors', queue: 'Queue name', run: 'Run both executors' },
];

for (const width of [360, 1280]) {
  test(`one bad name, one answer at ${width} px: a{b and a 65-byte name refused the same way in every experiment, never left waiting`, async () => {
    const seen = new Map<string, string[]>();
    for (const { route, name, queue, run } of EXPERIMENTS) {
      const page = await open(route, width);
      const section = page.locator(`[data-experiment="${name}"]`);
      const field = section.getByLabel(queue, { exact: true });
      // the cap is on the input and in its text
      assert.equal(await field.getAttribute('data-max-bytes'), '64', name);
      const described = await field.getAttribute('aria-describedby');
      assert.match(await page.locator(`#${described}`).innerText(), /at most 64 bytes/, name);
      for (const [bad, code] of [
        ['a{b', 'BRACE'],
        ['x'.repeat(65), 'BAD_INPUT'],
      ] as const) {
        await field.fill(bad);
        if (run) await section.getByRole('button', { name: run }).click();
        // this name's answer, not the one before it still on screen
        const refused = section.locator('[data-result] .xp-refused', { hasText: code });
        await refused.waitFor();
        const answer = [
          await refused.innerText(),
          await section.locator('[data-refused-by]').innerText(),
          await section.locator('[data-result] .xp-wire summary').innerText(),
          (await section.locator('[data-would-be]').count())
            ? await section.locator('[data-would-be]').innerText()
            : '',
        ];
        const was = seen.get(bad);
        if (was) assert.deepEqual(answer, was, `${name} answers ${bad} as the others do`);
        else seen.set(bad, answer);
        if (name === 'slot') {
          // nothing is asked, so nothing is awaited
          await page.waitForTimeout(600);
          const text = await section.innerText();
          assert.doesNotMatch(text, /waiting|asking/, `${name}: ${bad}`);
          assert.match(await section.locator('[data-field="agree"]').innerText(), /not asked/);
        }
      }
      await noSidewaysScroll(page);
      await page.close();
    }
    const [brace, long] = [seen.get('a{b')!, seen.get('x'.repeat(65))!];
    assert.match(brace[0]!, /^BRACE invalid queue name: byte 1 is '\{'/);
    assert.match(brace[3]!, /emq:\{a\{b\}:pending would hash on a\{b, the whole name/);
    assert.match(brace[2]!, /: 0$/);
    assert.match(long[0]!, /^BAD_INPUT queue: is 65 bytes long; at most 64 are allowed/);
  });
}

test('a declared key at the cap (256 bytes) is sent and one past it is refused in the API’s words, at 360 px', async () => {
  const page = await open(GRAMMAR, 360);
  const layout = page.locator('[data-experiment="layout"]');
  assert.match(await layout.locator('legend').first().innerText(), /at most 256 bytes each/);
  const key = layout.getByLabel('Key 2');
  assert.equal(await key.getAttribute('data-max-bytes'), '256');
  const call = () => layout.getByRole('button', { name: 'Call EMQ.ENQUEUE' }).click();
  await key.fill(`emq:{orders}:pending${'é'.repeat(118)}`); // 20 + 236 = 256 bytes
  await call();
  await layout.locator('[data-node="standalone"] .xp-badge').waitFor();
  assert.doesNotMatch(await layout.locator('[data-result]').innerText(), /BAD_INPUT/);
  await key.fill(`emq:{orders}:pending${'é'.repeat(118)}x`);
  await call();
  await layout.locator('[data-result] .xp-refused', { hasText: 'BAD_INPUT' }).waitFor();
  assert.match(
    await layout.locator('[data-result]').innerText(),
    /keys\[1\]: is 257 bytes long; at most 256 are allowed/,
  );
  await page.close();
});

test('the text that explains a}b explains a{b too: its hashtag is a{b, the whole name (PROTOCOL.md §2)', async () => {
  const html = await (await fetch(explorer.site.url + GRAMMAR)).text();
  const text = html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
  assert.match(text, /Queue a\}b would produce emq:\{a\}b\}:pending, whose hashtag is a /);
  assert.match(
    text,
    /Queue a\{b is harmless to the slot: emq:\{a\{b\}:pending hashes on a\{b, its whole name/,
  );
});

test('keys wrap between segments at 360 px, never inside one; a non-ASCII name shows as its text', async () => {
  const page = await open(GRAMMAR, 360);
  const keys = page.locator('[data-experiment="keys"]');
  await keys.getByLabel('Queue name', { exact: true }).fill('orders-of-the-day-é€');
  await keys.getByRole('button', { name: 'Enqueue on the sandbox' }).click();
  await keys.locator('.xp-accepted').waitFor();
  assert.match(await keys.locator('.xp-live').innerText(), /emq:\{orders-of-the-day-é€\}:pending/);
  // the wire view too: the same name, not redis-cli's \xc3\xa9…
  await keys.locator('[data-result] .xp-wire summary').click();
  const sent = await keys.locator('[data-result] .xp-wire').innerText();
  assert.match(
    sent,
    /EVALSHA [0-9a-f]{40} 2 "emq:\{orders-of-the-day-é€\}:job:JOB\w+" "emq:\{orders-of-the-day-é€\}:pending"/,
  );
  assert.doesNotMatch(sent, /\\xc3/);
  // each piece between two break points sits on one line
  const split = await page.evaluate(() => {
    const broken: string[] = [];
    for (const code of document.querySelectorAll('[data-experiment="keys"] [data-result] code.xp-key')) {
      const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(node.textContent!);
      }
    }
    return broken;
  });
  assert.deepEqual(split, []);
  await page.close();

  const slotPage = await open(HASHTAG, 360);
  const slot = slotPage.locator('[data-experiment="slot"]');
  await slot.getByLabel('Queue name', { exact: true }).fill('é€');
  // The page arrives drawn for orders, server slot included, and its code loads once the field is
  // touched: the typed name's key first, then the cluster node's answer for it.
  await slot.locator('[data-field="key"]', { hasText: 'emq:{é€}:pending' }).waitFor();
  await slot.locator('[data-field="server-slot"]', { hasText: /^\d+$/ }).waitFor();
  assert.equal(await slot.locator('[data-field="key"]').innerText(), 'emq:{é€}:pending');
  assert.match(await slot.locator('[data-crossslot]').innerText(), /emq:\{é€\}:pending/);
  await slotPage.close();
});

test('the module page: the part picker and the explorer’s picker are one state, in the URL; two executors compact at 360 px', async () => {
  const page = await open(MODULE, 360);
  await page.locator('[data-part-tab="hashtag"]').click();
  assert.match(page.url(), /#part-hashtag$/);
  // the explorer's code loads as the reader reaches it, and opens on the part the URL holds
  await reachExplorer(page);
  await page.locator('[data-view="slot"]:not([hidden])').waitFor();
  assert.equal(await page.getByRole('radio', { name: 'The hashtag: the slot' }).isChecked(), true);
  await page.getByRole('radio', { name: 'The reserve' }).check();
  assert.match(page.url(), /#part-reserve$/);
  assert.equal(await page.locator('[data-part-tab="reserve"]').getAttribute('aria-selected'), 'true');
  assert.equal(await page.locator('[data-part-panel="reserve"]').isVisible(), true);
  // a link to a part opens the explorer on it too
  await page.goto(`${explorer.site.url}${MODULE}#part-grammar`);
  await page.locator('[data-explorer][data-sandbox="up"]').waitFor();
  await page.locator('[data-view="keys"]:not([hidden])').waitFor();

  const two = page.locator('[data-experiment="two-executors"]');
  await two.getByRole('button', { name: 'Run both executors' }).click();
  await two.locator('[data-verdict]').waitFor();
  const height = (await two.boundingBox())!.height;
  // 7,553 px before the steps were folded; the run is now a line or two per step
  assert.ok(height < 3500, `two executors is ${Math.round(height)} px tall at 360 px`);
  await two.locator('.xp-run-calls summary').first().click();
  assert.match(await two.locator('[data-call]').first().innerText(), /^> EVALSHA /);
  await noSidewaysScroll(page);
  await page.close();
});

for (const width of [360, 1280]) {
  test(`exercises at ${width} px: a miss gets a hint, two get "Show me"; the migration question`, async () => {
    const page = await open(HASHTAG, width, true, width === 360 ? 'dark' : 'light');
    const item = page.locator('[data-exercise="slot-same-as-vector"]');
    const status = item.getByRole('status');
    const hint = item.locator('[data-hint]');
    const miss = async (text: string) => {
      await item.locator('input').fill(text);
      await status.evaluate((el) => (el.textContent = ''));
      await item.getByRole('button', { name: 'Check' }).click();
      await status
        .filter({ hasText: /^Not yet\. That key lands on slot \d+, not on slot 12739\./ })
        .waitFor();
    };
    await miss('12345678');
    // the hint is its own element, beside the verdict, never inside it
    assert.doesNotMatch(await status.innerText(), /Hint:/);
    assert.match(await hint.innerText(), /^Hint: Only the bytes between the first \{/);
    assert.equal(await item.getByRole('button', { name: 'Show me' }).isVisible(), false);
    await miss('1234567');
    await item.getByRole('button', { name: 'Show me' }).click();
    const shown = item.locator('[data-shown]');
    assert.match(await shown.innerText(), /Answer: foo\{123456789\}[\s\S]*hashes its hashtag 123456789/);
    // keyboard: the answer takes the focus, visibly; no rule of axe broken, in either theme
    assert.equal(await shown.evaluate((el) => el === document.activeElement), true);
    const axe = await new AxeBuilder({ page }).include('.ex-panel').analyze();
    assert.deepEqual(
      axe.violations.map((v) => v.id),
      [],
    );

    const migration = page.locator('[data-exercise="slot-claim-mid-migration"]');
    await migration.getByLabel('MOVED to the target').check();
    await migration.getByRole('button', { name: 'Check' }).click();
    await migration.getByRole('status').filter({ hasText: 'Not yet.' }).waitFor();
    assert.match(await migration.locator('[data-hint]').innerText(), /Hint: ASK is for one key/);
    await migration.getByLabel(/TRYAGAIN, on the source/).check();
    await migration.getByRole('button', { name: 'Check' }).click();
    await migration.getByRole('status').filter({ hasText: 'Right.' }).waitFor();
    assert.match(
      await migration.getByRole('status').innerText(),
      /The row base emq:\{orders\}:job: is no key on the cluster \(EXISTS counts 0 of it\): the claim always names a missing key.*once none is left on the source, the source answers ASK.*served only after CLUSTER SETSLOT … NODE/,
    );
    await noSidewaysScroll(page);
    await page.close();
  });
}

for (const width of [360, 1280]) {
  test(`without JavaScript at ${width} px: what cannot work is hidden or disabled with a notice, and nothing says "waiting"`, async () => {
    for (const route of [MODULE, GRAMMAR, HASHTAG, `${MODULE}reserve/`]) {
      const page = await open(route, width, false);
      const text = await page.locator('main').innerText();
      // the explorer, the console and the exercises: what would wait for a script (the source panels
      // quote code, whose words are the code's own)
      for (const part of await page.locator('.xp, .cn-panel, .ex-panel').all())
        assert.doesNotMatch(await part.innerText(), /waiting|Connecting|asking the cluster/i, route);
      // the console's form is gone; its notice says how to run the lines without it
      assert.equal(await page.locator('emq-console').isVisible(), false, route);
      assert.match(text, /The console runs with JavaScript, which is off/, route);
      // every explorer control is disabled, under the explorer's notice
      assert.match(text, /This explorer runs in the browser, and JavaScript is off/, route);
      // its curl lines and the console's name the page's own origin as SITE, never npm start's address
      assert.doesNotMatch(text, /localhost:4321/, route);
      assert.match(
        text,
        /Set SITE to this page’s own origin, the scheme, host and port your address bar shows/,
        route,
      );
      assert.match(text, /with SITE set to this page’s own origin/, route);
      assert.match(text, /curl -s \$SITE\/api\/experiments\//, route);
      for (const control of await page
        .locator('.xp button:visible, .xp input:visible, .xp select:visible')
        .all())
        assert.equal(
          await control.isDisabled(),
          true,
          `${route}: ${await control.evaluate((el) => el.outerHTML.slice(0, 80))}`,
        );
      if ((await page.locator('.ex-panel').count()) > 0) {
        assert.equal(await page.locator('.ex-actions').first().isVisible(), false, route);
        assert.match(text, /checks answers with JavaScript, which is off/, route);
        await page.locator('.ex-item details summary').first().click();
        assert.match(await page.locator('.ex-item details').first().innerText(), /Answer:/);
      }
      await page.close();
    }
  });
}

test('a reload on #part-reserve shows the reserve in the picker and in the explorer, before and after the island', async () => {
  const page = await openPage(chromium.browser, `${explorer.site.url}${MODULE}#part-reserve`, {
    width: 1280,
  });
  // the island held back: the fallback is what the reader sees meanwhile
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/_server-islands/**', async (route) => {
    await held;
    await route.continue();
  });
  await page.reload();
  const fallback = page.locator('[data-explorer="module"][data-sandbox="loading"]');
  await fallback.locator('[data-view="reserve"]:not([hidden])').waitFor();
  assert.equal(await fallback.locator('[data-view]:not([hidden])').count(), 1);
  assert.equal(await page.locator('[data-part-tab="reserve"]').getAttribute('aria-selected'), 'true');
  // the picker's tab, picked before the island arrives, moves the fallback with it
  await page.locator('[data-part-tab="hashtag"]').click();
  await fallback.locator('[data-view="slot"]:not([hidden])').waitFor();
  await page.locator('[data-part-tab="reserve"]').click();
  release();
  await reachExplorer(page);
  const live = page.locator('[data-explorer="module"][data-sandbox="up"]');
  await live.locator('[data-view="reserve"]:not([hidden])').waitFor();
  assert.equal(await live.getByRole('radio', { name: 'The reserve' }).isChecked(), true);
  assert.equal(await live.locator('[data-view]:not([hidden])').count(), 1);
  await page.close();
});

test('search by keyboard: ArrowDown walks the results, ArrowUp back to the field, Enter opens one', async () => {
  const page = await openPage(chromium.browser, `${explorer.site.url}/`, { width: 1280 });
  const field = page.locator('#search-input');
  await field.focus();
  await page.keyboard.type('TRYAGAIN');
  const results = page.locator('.search-results a');
  await results.first().waitFor();
  assert.ok((await results.count()) >= 2, 'two results or more to walk');
  const focused = () =>
    page.evaluate(() => document.activeElement?.getAttribute('href') ?? document.activeElement?.id);
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), await results.nth(0).getAttribute('href'));
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), await results.nth(1).getAttribute('href'));
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  assert.equal(await focused(), 'search-input');
  // Enter on a result follows it; Enter in the field opens the first
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const second = new URL((await results.nth(1).getAttribute('href'))!, explorer.site.url);
  // The whole address, fragment included: the glossary result is on this same page, whose path alone
  // matched before Enter was handled (a loaded machine failed it so).
  await Promise.all([
    page.waitForURL((url) => url.pathname === second.pathname && url.hash === second.hash),
    page.keyboard.press('Enter'),
  ]);
  assert.equal(new URL(page.url()).hash, second.hash);
  const search = page.locator('#search-input');
  await search.fill('');
  await search.focus();
  await page.keyboard.type('MIGRATESLOTS');
  await page.locator('.search-results a').first().waitFor();
  const first = new URL(
    (await page.locator('.search-results a').first().getAttribute('href'))!,
    explorer.site.url,
  );
  await Promise.all([page.waitForURL((url) => url.hash === first.hash), page.keyboard.press('Enter')]);
  await page.close();
});

test('a run button is disabled while its run is on the wire, in every experiment through the shared path', async () => {
  const page = await open(HASHTAG, 1280);
  await reachExplorer(page);
  const section = page.locator('[data-experiment="route"]');
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/experiments/route', async (route) => {
    await held;
    await route.continue();
  });
  const buttons = section.locator('form button[type="submit"]');
  assert.ok((await buttons.count()) >= 3, 'route, and the two ways to move the slot');
  await section.getByRole('button', { name: 'Route it on the cluster' }).click();
  await section.locator('form[aria-busy="true"]').waitFor();
  for (const button of await buttons.all()) assert.equal(await button.isDisabled(), true);
  release();
  await section.locator('form:not([aria-busy])').waitFor();
  await page.waitForFunction(
    () =>
      ![...document.querySelectorAll('[data-experiment="route"] form button[type="submit"]')].some(
        (b) => (b as HTMLButtonElement).disabled,
      ),
  );
  await page.close();
});

test('the hashtag dive’s console runs on the cluster, and its intro says what the cluster gives', async () => {
  const page = await open(HASHTAG, 1280);
  const intro = page.locator('.cn-intro[data-intro]');
  assert.equal(await intro.getAttribute('data-intro'), 'cluster');
  const said = (await intro.innerText()).replace(/\s+/g, ' ');
  assert.match(said, /They run on the three-node cluster/);
  assert.match(said, /GET \{emq\}:version answers \(nil\)/);
  assert.match(said, /SCRIPT <verb> and every other write are refused/);
  assert.doesNotMatch(said, /already holds/);
  assert.equal(await page.locator('emq-console input[name="node"][value="cluster"]').isChecked(), true);
  // what the intro says, on the real cluster
  const { status, body } = await explorer.post('console', {
    node: 'cluster',
    lines: [
      'GET {emq}:version',
      'SCRIPT claim 3 emq:{orders}:pending emq:{orders}:active emq:{orders}:job: 30000',
    ],
  });
  assert.equal(status, 200);
  const [get, script] = body.result.lines;
  assert.equal(get.outcome, 'reply');
  assert.equal(get.reply, null);
  assert.notEqual(script.outcome, 'reply');
  // a standalone page's intro says the fresh keyspace, where the identity holds
  await page.goto(explorer.site.url + GRAMMAR);
  assert.match(
    (await page.locator('.cn-intro[data-intro="standalone"]').innerText()).replace(/\s+/g, ' '),
    /fresh keyspace of your own, where \{emq\}:version already holds the native module's wire identity/,
  );
  await page.close();
});
