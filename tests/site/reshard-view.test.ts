// The reshard view in Chromium at 360 and 1280 px, both themes, against three-node clusters this file
// owns (Valkey 8 for the key-by-key mode, 9.1 for the atomic one): a stepper showing one phase at a time
// (Previous, Next, the scrubber and the keyboard change it), a drawing of the cluster in that phase with
// an accessible name, the phase's probes as a table — the node named as on the map, the reply as
// redis-cli prints it and its kind as a word — the slot map following the phase (the slot open, then
// on its new owner, then back), and every phase still there as a list on demand. The first result fits
// the height budget, axe finds nothing in it, and nothing overflows the page.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { useExplorer } from '../support/explorer.ts';
import { KEYS_MODE_PHASES } from '../support/migration-timeline.ts';
import { atomicUp } from '../support/sandbox-up.ts';
import { openPage, reachExplorer, useBrowser } from '../support/site.ts';
import { valkey9ForTests } from '../support/valkey9.ts';

const { skip: noValkey9 } = await valkey9ForTests();
const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000', VALKEY9_AT_START: '1' });
const HASHTAG = '/protocol/the-owned-keyspace/hashtag-and-slot/';
const chromium = useBrowser();
const BUDGET: Record<number, number> = { 360: 2400, 1280: 1350 };
const KINDS = /^(served|refused|redirected|retry)( \d+×)?$/;

async function run(page: Page, button: string): Promise<Locator> {
  await reachExplorer(page, '[data-sandbox="up"]');
  const section = page.locator('[data-experiment="route"]');
  await section.getByRole('button', { name: button }).click();
  await section.locator('[data-stepper]').waitFor({ timeout: 60_000 });
  return section;
}

const shown = (section: Locator) => section.locator('[data-frame-name]').textContent();

/** What every first result must hold: the budget, no sideways scroll, badges that say a kind, no axe finding. */
async function firstResultHolds(page: Page, section: Locator, width: number): Promise<void> {
  const height = await section.locator('[data-result]').evaluate((el) => el.getBoundingClientRect().height);
  assert.ok(height <= BUDGET[width]!, `the first result is ${Math.round(height)} px tall at ${width} px`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the window`);
  for (const badge of await section.locator('.xp-badge[data-kind]').allTextContents())
    assert.match(badge, KINDS);
  const axe = await new AxeBuilder({ page }).include('[data-experiment="route"]').analyze();
  assert.deepEqual(
    axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
  );
}

for (const [width, colorScheme] of [
  [360, 'dark'],
  [1280, 'light'],
  [360, 'light'],
  [1280, 'dark'],
] as const) {
  test(`key by key at ${width} px (${colorScheme}): one phase at a time, drawn, stepped, the map following`, async () => {
    const page = await openPage(chromium.browser, explorer.site.url + HASHTAG, { width, colorScheme });
    const section = await run(page, 'Move its slot, and back');
    const stepper = section.locator('[data-reshard-mode="keys"] [data-stepper]');
    assert.equal(await shown(stepper), 'stable');
    await firstResultHolds(page, section, width);
    // the drawing has a name that says what it shows
    const drawing = stepper.getByRole('img', { name: /^stable: node 1 owns slot 105/ });
    assert.ok(await drawing.isVisible());
    assert.ok(await stepper.getByRole('button', { name: 'Previous' }).isDisabled());

    // Next, the scrubber by keyboard, End and Home
    await stepper.getByRole('button', { name: 'Next' }).click();
    assert.equal(await shown(stepper), 'importing');
    const scrub = stepper.getByRole('slider', { name: /Phase of the key-by-key move/ });
    await scrub.focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await shown(stepper), 'migrating');
    assert.equal(await scrub.getAttribute('aria-valuetext'), 'phase 3 of 7: migrating');
    await page.keyboard.press('End');
    assert.equal(await shown(stepper), 'back');
    assert.ok(await stepper.getByRole('button', { name: 'Next' }).isDisabled());
    await page.keyboard.press('Home');
    await stepper.getByRole('button', { name: 'Next' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    assert.equal(await shown(stepper), 'split');
    await stepper.getByRole('button', { name: 'Previous' }).click();
    assert.equal(await shown(stepper), 'migrating');
    await stepper.getByRole('button', { name: 'Next' }).click();

    // split: the drawing shows both sides open and the keys split; the probes' replies word for word
    assert.equal(
      await stepper.locator('[data-drawing] [data-node="1"]').getAttribute('data-open'),
      'migrating',
    );
    assert.equal(
      await stepper.locator('[data-drawing] [data-node="2"]').getAttribute('data-open'),
      'importing',
    );
    assert.match(
      String(await stepper.locator('[data-drawing] [data-node="1"]').textContent()),
      /\d+ keys of the queue/,
    );
    assert.match(
      String(await stepper.locator('[data-drawing] [data-node="2"]').textContent()),
      /1 key of the queue/,
    );
    const ask = stepper.locator('[data-probe="a moved key, on the owner"]');
    assert.equal(await ask.getAttribute('data-kind'), 'redirected');
    assert.match(await ask.innerText(), /node 1/);
    assert.match(
      String(await ask.locator('[data-reply]').textContent()),
      /^\(error\) ASK 105 127\.0\.0\.1:\d+$/,
    );
    const claim = stepper.locator('[data-probe="the scripted claim on the target, after ASKING"]');
    assert.equal(await claim.getAttribute('data-kind'), 'retry');
    assert.match(await claim.innerText(), /ASKING, then EVALSHA [0-9a-f]{8}… 3 emq:\{orders\}:pending/);
    assert.equal(
      await claim.locator('[data-reply]').textContent(),
      '(error) TRYAGAIN Multiple keys request during rehashing of slot',
    );
    // every arrow of the drawing is marked by a word as well as a colour, and counts that kind's replies:
    // together they count every probe of the phase once (never a row number)
    const arrows = await stepper.locator('[data-drawing] .xp-arrow').allTextContents();
    for (const a of arrows) assert.match(a, /^\d+ (served|refused|redirected|retry)$/);
    assert.equal(
      arrows.reduce((sum, a) => sum + Number(a.split(' ')[0]), 0),
      await stepper.locator('[data-probe]').count(),
    );
    // the full command text on demand
    await stepper.locator('[data-full-commands] summary').click();
    assert.match(await stepper.locator('[data-full-commands]').innerText(), /EVALSHA [0-9a-f]{40} 3 /);

    // the slot map follows: open in split, on node 2 once it owns the slot, on node 1 again at the end
    const map = section.locator('[data-slot-grid]');
    assert.equal(await map.locator('[data-open-slot="105"]').count(), 1);
    assert.match(
      String(await map.getByRole('slider').getAttribute('aria-label')),
      /slot 105 MIGRATING on node 1, IMPORTING on node 2/,
    );
    await stepper.getByRole('button', { name: 'Next' }).click();
    await stepper.getByRole('button', { name: 'Next' }).click();
    assert.equal(await shown(stepper), 'owner');
    assert.equal(await map.locator('[data-owner="queue"]').textContent(), 'node 2');
    assert.equal(await map.locator('[data-open-slot]').count(), 0);
    await stepper.getByRole('button', { name: 'Next' }).click();
    assert.equal(await map.locator('[data-owner="queue"]').textContent(), 'node 1');

    // every phase is still there, as a list, in order, with the owner moving and coming back
    const all = section.locator('[data-reshard-all]');
    await all.locator('summary').first().click();
    const phases = all.locator('[data-phase]');
    assert.deepEqual(
      await phases.evaluateAll((els) => els.map((el) => el.getAttribute('data-phase'))),
      KEYS_MODE_PHASES,
    );
    const owners = await phases.evaluateAll((els) =>
      els.map((el) => el.querySelector('.xp-phase-node.is-owner')?.getAttribute('data-node')),
    );
    assert.deepEqual(owners, ['1', '1', '1', '1', '1', '2', '1']);
    assert.match(String(await section.locator('[data-reply="client"]').textContent()), /^1\) "JOB/);
    // keys keep their case; nothing overflows with everything open
    const transforms = await section
      .locator('[data-result] code')
      .evaluateAll((els) => [...new Set(els.map((el) => getComputedStyle(el).textTransform))]);
    assert.deepEqual(transforms, ['none']);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the window`);
    await page.close();
  });
}

test('with reduced motion Play is not offered; otherwise it steps on its own and pauses', async () => {
  const page = await openPage(chromium.browser, explorer.site.url + HASHTAG);
  const section = await run(page, 'Move its slot, and back');
  const play = section.locator('[data-step="play"]');
  assert.equal(await play.innerText(), 'Play');
  await play.click();
  assert.equal(await play.getAttribute('aria-pressed'), 'true', await play.innerText());
  await section.locator('[data-frame-name]', { hasText: 'importing' }).waitFor({ timeout: 5000 });
  await section.getByRole('button', { name: 'Pause' }).click();
  assert.equal(await play.getAttribute('aria-pressed'), 'false');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  assert.ok(await section.locator('[data-step="play"]').isHidden());
  await page.close();
});

describe('the atomic mode on Valkey 9.1', { skip: noValkey9 }, () => {
  before(() => atomicUp(explorer.site.url));

  for (const width of [360, 1280]) {
    test(`atomic at ${width} px: a value served N× then redirected; an EMQWIRE refused N×, then redirected`, async () => {
      const page = await openPage(chromium.browser, explorer.site.url + HASHTAG, { width });
      const section = await run(page, 'Move it atomically (Valkey 9.1)');
      const stepper = section.locator('[data-reshard-mode="atomic"] [data-stepper]');
      await firstResultHolds(page, section, width);
      await stepper.getByRole('button', { name: 'Next' }).click();
      assert.equal(await shown(stepper), 'moving');
      const row = stepper.locator('[data-probe="a key of the queue (its oldest row)"]');
      assert.match(await row.locator('.xp-badge').first().innerText(), /^served \d+×$/);
      assert.equal(await row.locator('.xp-badge').nth(1).innerText(), 'redirected');
      const module = stepper.locator('[data-probe="the module’s enqueue"]');
      assert.match(await module.locator('.xp-badge').first().innerText(), /^refused \d+×$/);
      assert.equal(
        await module.locator('[data-first-reply]').textContent(),
        '(error) EMQWIRE expected a standalone server but cluster mode is enabled',
      );
      assert.match(String(await module.locator('[data-reply]').textContent()), /^\(error\) MOVED 105 /);
      if (width === 1280) {
        // the other mode too: both workers on one time axis, each said in words; the sizes the answer offers
        assert.deepEqual(
          await section.getByLabel('Jobs in the queue when it moves').locator('option').allTextContents(),
          ['1,000', '20,000'],
        );
        await section.getByRole('button', { name: 'Move its slot, and back' }).click();
        await section.locator('[data-reshard-mode="keys"] [data-stepper]').waitFor({ timeout: 120_000 });
        assert.match(
          await section.locator('[data-reshard-mode="keys"] .xp-reshard-line').innerText(),
          /1,000 jobs/,
        );
        const timeline = section.locator('[data-worker-timeline]');
        assert.equal(await timeline.locator('[data-lane]').count(), 2);
        assert.ok(
          await timeline
            .getByRole('img', { name: /Atomic — Valkey 9\.1: \d+ claims.*Key by key — Valkey 8: \d+ claims/ })
            .isVisible(),
        );
        for (const mode of ['keys', 'atomic']) {
          const said = await timeline.locator(`[data-worker="${mode}"]`).innerText();
          assert.match(said, /longest wait without a served claim [\d,]+ ms/, said);
          assert.match(said, /maxRedirections \d+/, said);
        }
      }
      await page.close();
    });
  }
});
