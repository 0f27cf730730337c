// The explorer's drawings, as a reader uses them in Chromium at 360 and 1280 px in both themes, against a
// sandbox this file owns: the slot map (all 16,384 slots by owner, one focusable slider read by arrow
// keys, hover and tap, with a name that gives the ranges in words); the keys of the queue following the
// typing, a refused name said at once; the check order lit at the step that answered; every
// experiment's first result within the height budget and no page scrolling sideways; every node colour
// and mark at least 3:1 against the page; and, without JavaScript, the map and the phases of a move.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { useExplorer } from '../support/explorer.ts';
import { ATOMIC_PHASES, KEYS_MODE_PHASES } from '../support/migration-timeline.ts';
import { openPage, reachExplorer, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const MODULE = '/protocol/the-owned-keyspace/';
const GRAMMAR = `${MODULE}braced-grammar/`;
const HASHTAG = `${MODULE}hashtag-and-slot/`;
const RESERVE = `${MODULE}reserve/`;
const BUDGET: Record<number, number> = { 360: 2400, 1280: 1350 };
const chromium = useBrowser();

async function open(route: string, width = 1280, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await openPage(chromium.browser, explorer.site.url + route, { width, colorScheme });
  await reachExplorer(page, '[data-sandbox="up"]');
  return page;
}

const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test('the slot map: every slot by owner, a name in words, read slot by slot by keyboard and pointer', async () => {
  const page = await open(HASHTAG);
  const section = page.locator('[data-experiment="slot"]');
  const map = section.getByRole('slider', {
    name: /^The 16,384 slots: node 1 holds 0–5460; node 2 holds 5461–10922; node 3 holds 10923–16383\. emq:\{orders\}:\* on slot 105, node 1;.* \{emq\}:version on slot 9051, node 2/,
  });
  await map.focus();
  const readout = section.locator('[data-grid-readout]');
  assert.equal(await readout.textContent(), 'slot 105: node 1');
  await page.keyboard.press('ArrowRight');
  assert.equal(await map.getAttribute('aria-valuenow'), '106');
  await page.keyboard.press('ArrowDown');
  assert.equal(await map.getAttribute('aria-valuenow'), '234');
  await page.keyboard.press('PageDown');
  assert.equal(await map.getAttribute('aria-valuenow'), String(234 + 1024));
  await page.keyboard.press('End');
  assert.equal(await map.getAttribute('aria-valuetext'), 'slot 16383: node 3');
  await page.keyboard.press('Home');
  assert.equal(await readout.textContent(), 'slot 0: node 1');
  // only the map is focusable, not its slots
  assert.equal(await section.locator('[data-slot-grid] [tabindex]').count(), 1);
  // hover: the middle of the grid is slot 64 × 128 + 64
  await map.scrollIntoViewIfNeeded();
  const box = (await map.boundingBox())!;
  await page.mouse.move(box.x + box.width * (67.5 / 134), box.y + box.height * (67.5 / 134));
  assert.equal(await readout.textContent(), `slot ${64 * 128 + 64}: node 2`);
  // the marks follow the typing: the queue emq lands on the reserve's slot
  await section.getByLabel('Queue name', { exact: true }).fill('emq');
  assert.equal(await section.locator('[data-pin="queue"]').textContent(), '9051');
  assert.equal(await section.locator('[data-mark="queue"]').getAttribute('data-slot'), '9051');

  // the route experiment's map reads the owners live, with addresses, and the slot map beside it follows
  const route = page.locator('[data-experiment="route"]');
  await route.getByRole('button', { name: 'Route it on the cluster' }).click();
  await route.locator('[data-route="moved"]').waitFor();
  const addresses = await route.locator('[data-slot-grid] [data-node-address]').allTextContents();
  assert.equal(addresses.length, 3);
  await section.locator('[data-node-address]').first().waitFor();
  assert.deepEqual(await section.locator('[data-node-address]').allTextContents(), addresses);
  await page.close();
});

test('node colours and marks: at least 3:1 against the page in both themes (node 1 in dark too)', async () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    const page = await open(HASHTAG, 1280, colorScheme);
    const ratios = await page.locator('[data-experiment="route"] [data-slot-grid]').evaluate((figure) => {
      const rgb = (css: string) => {
        const probe = document.createElement('canvas').getContext('2d')!;
        probe.fillStyle = css;
        probe.fillRect(0, 0, 1, 1);
        return [...probe.getImageData(0, 0, 1, 1).data].slice(0, 3);
      };
      const lum = ([r, g, b]: number[]) => {
        const c = [r!, g!, b!]
          .map((v) => v / 255)
          .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
        return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
      };
      const ratio = (a: string, b: string) => {
        const [x, y] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p);
        return (x! + 0.05) / (y! + 0.05);
      };
      const page = getComputedStyle(document.body).backgroundColor;
      // a band and a mark's ring are both drawn by their fill
      const fills = [...figure.querySelectorAll('.xp-band, .xp-mark')].map((el) => getComputedStyle(el).fill);
      return fills.map((fill) => ratio(fill, page));
    });
    assert.ok(ratios.length >= 5, String(ratios.length));
    for (const r of ratios) assert.ok(r >= 3, `${colorScheme}: a colour at ${r.toFixed(2)}:1`);
    await page.close();
  }
});

test('keys follow the typing; a refused name is said at once, before anything is sent', async () => {
  const page = await open(GRAMMAR, 360, 'dark');
  const section = page.locator('[data-experiment="keys"]');
  const field = section.getByLabel('Queue name', { exact: true });
  await field.fill('mira');
  const keys = await section.locator('[data-typed] .xp-key-row .xp-key').allInnerTexts();
  assert.equal(keys.length, 13);
  assert.ok(
    keys.every((k) => k.startsWith('emq:{mira}:')),
    keys.join(' '),
  );
  assert.doesNotMatch(await section.innerText(), /emq:\{orders\}/);
  for (const [typed, code] of [
    ['a{b', 'BRACE'],
    ['', 'EMPTY_QUEUE'],
    ['x'.repeat(65), 'BAD_INPUT'],
  ]) {
    await field.fill(typed!);
    await section.locator('[data-typed] .xp-refused', { hasText: code! }).waitFor({ timeout: 1000 });
    assert.equal(await section.locator('[data-typed] .xp-key-row').count(), 0);
  }
  // the keys experiment's over-long key in the slot experiment's "any key" mode is a key, not a queue name
  const slot = await open(HASHTAG, 360, 'dark');
  const slotSection = slot.locator('[data-experiment="slot"]');
  await slotSection.getByLabel('any key').check();
  await slotSection.getByLabel('Any key', { exact: true }).fill('k'.repeat(257));
  const said = await slotSection.locator('[data-refused-by]').innerText();
  assert.match(said, /refuses a key over its byte cap/);
  assert.doesNotMatch(said, /queue name/);
  await page.close();
  await slot.close();
});

test('the check order lights the step that answered: the transition, the layout, the server mode', async () => {
  const page = await open(GRAMMAR);
  const section = page.locator('[data-experiment="layout"]');
  const lit = (side: string) =>
    section.locator(`[data-node="${side}"] [data-check][data-state="answered"]`).getAttribute('data-check');
  await section.getByRole('button', { name: 'Call EMQ.ENQUEUE' }).click();
  await section.locator('[data-node="standalone"] [data-check]').first().waitFor();
  assert.equal(await lit('standalone'), 'transition');
  assert.equal(await lit('cluster'), 'server mode');
  assert.equal(
    await section.locator('[data-node="standalone"] [data-check="routing"]').getAttribute('data-state'),
    'skipped',
  );
  assert.match(await section.locator('[data-node="cluster"] [data-check="layout"]').innerText(), /passed/);
  await section.getByLabel('Key 2').fill('emq:{ordErs}:pending');
  await section.getByRole('button', { name: 'Call EMQ.ENQUEUE' }).click();
  await section.locator('[data-node="standalone"] [data-check="layout"][data-state="answered"]').waitFor();
  assert.match(
    await section.locator('[data-node="standalone"] [data-check="key count"]').innerText(),
    /passed/,
  );
  assert.match(
    await section.locator('[data-node="standalone"] [data-check="server mode"]').innerText(),
    /not reached/,
  );
  // the badge says what the reply is, and never repeats its first word
  assert.equal(
    await section.locator('[data-node="standalone"] .xp-refused .xp-badge').innerText(),
    'refused',
  );
  await page.close();
});

/** Each experiment's run, and where its first result is drawn. */
const RUNS: Array<{ route: string; name: string; button?: string; result: string }> = [
  { route: GRAMMAR, name: 'keys', button: 'Enqueue on the sandbox', result: '[data-result]' },
  { route: GRAMMAR, name: 'layout', button: 'Call EMQ.ENQUEUE', result: '[data-result]' },
  { route: HASHTAG, name: 'slot', result: '[data-result], [data-slot-grid], [data-crossslot]' },
  { route: HASHTAG, name: 'route', button: 'Route it on the cluster', result: '[data-result]' },
  { route: HASHTAG, name: 'route', button: 'Move its slot, and back', result: '[data-result]' },
  { route: RESERVE, name: 'reserve', button: 'Run the reserve sequence', result: '[data-result]' },
  { route: MODULE, name: 'two-executors', button: 'Run both executors', result: '[data-result]' },
];

async function firstResultHeight(section: Locator, result: string): Promise<number> {
  return section.evaluate((el, selector) => {
    const parts = [...el.querySelectorAll(selector)]
      .map((p) => p.getBoundingClientRect())
      .filter((r) => r.height > 0);
    return Math.max(...parts.map((r) => r.bottom)) - Math.min(...parts.map((r) => r.top));
  }, result);
}

// Heights do not depend on the theme: each width in one theme (the other's axe runs in reshard-view and explorer tests).
for (const [width, colorScheme] of [
  [360, 'dark'],
  [1280, 'light'],
] as const) {
  {
    test(`every experiment's first result fits ${BUDGET[width]} px at ${width} px (${colorScheme}), no sideways scroll, axe clean`, async () => {
      const heights: string[] = [];
      for (const run of RUNS) {
        const page = await open(run.route, width, colorScheme);
        const section = page.locator(`[data-experiment="${run.name}"]`).first();
        if (run.button) {
          await section.getByRole('button', { name: run.button }).click();
          await section
            .locator('[data-result]')
            .locator(
              '.xp-call, .xp-accepted, .xp-refused, .xp-sides, [data-stepper], .xp-verdict, .xp-timeline',
            )
            .first()
            .waitFor({ timeout: 60_000 });
          await page.waitForTimeout(300);
        } else await section.locator('[data-crossslot] .xp-call-reply code').first().waitFor();
        const height = await firstResultHeight(section, run.result);
        heights.push(`${run.name}${run.button ? ` (${run.button})` : ''}: ${Math.round(height)}`);
        assert.ok(height <= BUDGET[width]!, `${run.name} at ${width}: ${Math.round(height)} px`);
        assert.ok((await overflow(page)) <= 0, `${run.name} at ${width} scrolls sideways`);
        const axe = await new AxeBuilder({ page }).include(`[data-experiment="${run.name}"]`).analyze();
        assert.deepEqual(
          axe.violations.map(
            (v) => `${run.name} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
          ),
          [],
        );
        await page.close();
      }
      console.log(`# first results at ${width} px (${colorScheme}): ${heights.join('; ')}`);
    });
  }
}

test('without JavaScript: the slot map drawn at build time, its ranges in words, and the phases of a move as a list', async () => {
  const page = await openPage(chromium.browser, explorer.site.url + HASHTAG, { javaScriptEnabled: false });
  const route = page.locator('[data-experiment="route"]').first();
  const map = route.getByRole('img', {
    name: /node 1 holds 0–5460; node 2 holds 5461–10922; node 3 holds 10923–16383/,
  });
  assert.ok(await map.isVisible());
  // each node's ranges drawn: one band a node, its outline a rectangle or more
  const bands = await route
    .locator('[data-slot-grid] path.xp-band')
    .evaluateAll((paths) => paths.map((p) => (p.getAttribute('d') ?? '').split('Z').filter(Boolean).length));
  assert.equal(bands.length, 3);
  assert.ok(
    bands.every((rects) => rects > 0),
    `rectangles per band: ${bands}`,
  );
  await route.locator('[data-move-phases] summary').click();
  const phases = await route.locator('[data-move-phases] li code').allTextContents();
  assert.deepEqual(phases, [...KEYS_MODE_PHASES, ...ATOMIC_PHASES]);
  await page.close();
});
