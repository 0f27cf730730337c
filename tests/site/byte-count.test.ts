// A capped field's live byte count, in Chromium at 360 px: UTF-8 bytes as the API counts them ('é' is
// 2), cap / cap at the cap with nothing said, one byte past it marked over and announced once through
// the polite status, the form not moved by any of it; the run still goes to the API, which refuses in its
// own words. What a reader typed before the explorer's code arrived is counted once it has. Without
// JavaScript the hint alone states the cap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITS } from '../../server/contract/limits.ts';
import { useExplorer } from '../support/explorer.ts';
import { openPage, reachExplorer, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '10000', EXPLORER_RATE: '10000' });
const chromium = useBrowser();
const GRAMMAR = '/protocol/the-owned-keyspace/braced-grammar/';
const CAP = LIMITS.queueBytes;

test(`the queue name's count: ${CAP / 2} × 'é' is ${CAP} / ${CAP}, one more byte is over, the API refuses`, async () => {
  const page = await openPage(chromium.browser, explorer.site.url + GRAMMAR, { width: 360 });
  // typed once the explorer's code runs: what it does before is the next test's
  await reachExplorer(page, '[data-sandbox="up"]');
  const keys = page.locator('[data-experiment="keys"]');
  const field = keys.locator('.xp-field').first();
  const input = keys.getByLabel('Queue name', { exact: true });
  const count = field.locator('[data-byte-count]');
  const alert = field.locator('[data-byte-alert]');
  assert.equal(await alert.getAttribute('aria-live'), 'polite');
  // its size, not its place: typing scrolls the field into view
  const formSize = async () => {
    const { width, height } = (await keys.locator('[data-form]').boundingBox())!;
    return { width, height };
  };
  const before = await formSize();

  await input.fill('');
  await input.pressSequentially('é'.repeat(CAP / 2));
  assert.equal(await count.innerText(), `${CAP} / ${CAP} bytes`);
  assert.equal(await count.getAttribute('data-over'), 'false');
  assert.equal(await alert.textContent(), '', 'nothing is announced while under the cap');

  await input.press('a');
  assert.equal(await count.innerText(), `${CAP + 1} / ${CAP} bytes, over the cap`);
  assert.equal(await count.getAttribute('data-over'), 'true');
  assert.match((await alert.textContent())!, new RegExp(`${CAP + 1} bytes, over its cap of ${CAP}`));
  const over = await count.evaluate((el) => getComputedStyle(el).color);
  const under = await field.locator('.xp-cap').evaluate((el) => getComputedStyle(el).color);
  assert.notEqual(over, under, 'over the cap is marked');
  assert.deepEqual(await formSize(), before, 'the count moved nothing');

  // The field still sends: the refusal is the API's.
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/experiments/keys')),
    keys.locator('button[type="submit"]').click(),
  ]);
  assert.equal(response.status(), 400);
  const refusal = (await response.json()) as { code: string; detail: string };
  assert.equal(refusal.code, 'BAD_INPUT');
  await keys.locator('[data-result]', { hasText: refusal.detail }).waitFor();

  // Back under the cap: the mark goes, and the status empties (it speaks only on crossing).
  await input.press('End');
  await input.press('Backspace');
  assert.equal(await count.getAttribute('data-over'), 'false');
  assert.equal(await alert.textContent(), '');
  await page.close();
});

test("text typed before the explorer's code has arrived is counted once it has", async () => {
  const context = await chromium.browser.newContext({ viewport: { width: 360, height: 900 } });
  try {
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    // the explorer's module (as the build names it) waits until released
    await context.route(/\/_astro\/explorer\.[\w-]+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    const page = await context.newPage();
    await page.goto(explorer.site.url + GRAMMAR);
    await page.locator('[data-explorer][data-sandbox="up"]').waitFor({ timeout: 30_000 });
    const keys = page.locator('[data-experiment="keys"]');
    const input = keys.getByLabel('Queue name', { exact: true });
    const count = keys.locator('.xp-field').first().locator('[data-byte-count]');
    const first = await count.innerText();
    await input.fill('é'.repeat(CAP / 2 + 1));
    assert.equal(await page.locator('emq-explorer:defined').count(), 0, 'the code has not run yet');
    assert.equal(await count.innerText(), first, 'nothing counts it yet');

    release();
    // the loader announces the typing again once the code has run (src/lib/when-needed.ts)
    const counted = `${CAP + 2} / ${CAP} bytes, over the cap`;
    await count.filter({ hasText: counted }).waitFor({ timeout: 15_000 });
    assert.equal(await count.innerText(), counted);
    assert.equal(await count.getAttribute('data-over'), 'true');
  } finally {
    await context.close();
  }
});

test('without JavaScript the hint states the cap and no count is shown', async () => {
  const page = await openPage(chromium.browser, explorer.site.url + GRAMMAR, {
    width: 360,
    javaScriptEnabled: false,
  });
  const field = page.locator('[data-experiment="keys"] .xp-field').first();
  assert.equal(await field.locator('.xp-cap').innerText(), `at most ${CAP} bytes of UTF-8`);
  assert.equal(await field.locator('[data-byte-count]').isVisible(), false);
  await page.close();
});
