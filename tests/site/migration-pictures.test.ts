// The migration's pictures, counted from the replies, in Chromium: each mode run once at each offered
// size (key by key and atomically at 1,000 jobs by their own buttons, then both at 20,000 by "Compare
// both ways", one click), and each answer's stepper stepped through every phase at 360 and 1280 px in
// both themes without running again. In every phase the drawing's text alternative and its marks say the
// answer's counts — each node's keys of the queue, each node's replies by kind — and nothing else; no
// text overflows its box; no SVG text is under 12 px at 360 px. The workers' timeline starts at 0 ms,
// fills its column, and its marks are read by keyboard (time, node, reply, as the answer has them) and
// by pointer. Screenshots of every viewport and theme go to test-results/screenshots/migration-*.png.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import {
  MIGRATION_SIZES,
  REPLY_KINDS,
  replyKind,
  type MigrationResult,
} from '../../server/contract/experiments/migration.ts';
import { useExplorer } from '../support/explorer.ts';
import { atomicUp } from '../support/sandbox-up.ts';
import { openPage, reachExplorer, useBrowser } from '../support/site.ts';
import { valkey9ForTests } from '../support/valkey9.ts';

const { skip: noValkey9 } = await valkey9ForTests();
const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000', VALKEY9_AT_START: '1' });
const chromium = useBrowser();
const HASHTAG = '/protocol/the-owned-keyspace/hashtag-and-slot/';
const SHOTS = new URL('../../test-results/screenshots/', import.meta.url).pathname;
const LOOKS = [
  [360, 'light'],
  [360, 'dark'],
  [1280, 'light'],
  [1280, 'dark'],
] as const;

/** What a drawing must say of one phase, worked out here from the answer alone. */
function expectedWords(r: MigrationResult, index: number): { keys: string; replies: string } {
  const phase = r.phases[index]!;
  const keys = r.nodes
    .map((n) => `${phase.keysByNode[n.address]!.toLocaleString('en')} on ${n.name}`)
    .join(', ');
  const replies = r.nodes
    .map((n) => {
      const counts = phase.repliesByNode[n.address]!;
      const said = REPLY_KINDS.filter((k) => counts[k] > 0).map(
        (k) => `${counts[k].toLocaleString('en')} ${k}`,
      );
      return said.length ? `${n.name}: ${said.join(', ')}` : '';
    })
    .filter(Boolean)
    .join('; ');
  return { keys, replies: replies || 'none in this phase' };
}

async function goTo(stepper: Locator, index: number): Promise<void> {
  await stepper.locator('[data-step="scrub"]').evaluate((el, i) => {
    const input = el as HTMLInputElement;
    input.value = String(i);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }, index);
  assert.equal(await stepper.locator('[data-frame-index]').getAttribute('data-frame-index'), String(index));
}

/** Every phase of one answer's stepper: the drawing's words and marks equal the answer's counts. */
async function holdCounts(stepper: Locator, r: MigrationResult): Promise<void> {
  for (let i = 0; i < r.phases.length; i += 1) {
    await goTo(stepper, i);
    const phase = r.phases[i]!;
    const drawing = stepper.locator('[data-drawing]');
    const name = String(await drawing.getAttribute('aria-label'));
    const said = /keys of the queue: (.*); replies: (.*)$/.exec(name);
    assert.ok(said, name);
    const expected = expectedWords(r, i);
    assert.equal(said[1], expected.keys, `${r.mode} ${r.jobCount} ${phase.name}: keys`);
    assert.equal(said[2], expected.replies, `${r.mode} ${r.jobCount} ${phase.name}: replies`);
    // the marks say the same: each node's keys in figures, one arrow per kind with its count
    for (const [j, node] of r.nodes.entries()) {
      const card = drawing.locator(`[data-node="${j + 1}"]`);
      const keys = phase.keysByNode[node.address]!;
      assert.equal(await card.getAttribute('data-keys'), String(keys));
      assert.match(
        String(await card.locator('.xp-draw-keys').textContent()),
        keys === 0
          ? /^no key of the queue$/
          : new RegExp(`^${keys.toLocaleString('en')} keys? of the queue$`),
      );
      const arrows = await card
        .locator('.xp-arrow')
        .evaluateAll((els) => els.map((el) => [el.getAttribute('data-kind'), el.textContent]));
      const counts = phase.repliesByNode[node.address]!;
      assert.deepEqual(
        arrows,
        REPLY_KINDS.filter((k) => counts[k] > 0).map((k) => [k, `${counts[k].toLocaleString('en')} ${k}`]),
        `${r.mode} ${phase.name} ${node.name}: arrows`,
      );
    }
  }
  // the bulk of the queue leaves the source and arrives on the target
  const first = r.phases[0]!.keysByNode;
  const owner = r.phases.find((p) => p.name === 'owner')!.keysByNode;
  assert.ok(first[r.source]! >= r.jobCount && first[r.target] === 0, JSON.stringify(first));
  assert.ok(owner[r.target]! >= r.jobCount && owner[r.source] === 0, JSON.stringify(owner));
}

/** Every text of the result within its box; SVG text 12 px or more where asked. */
async function holdLayout(page: Page, section: Locator, width: number, minSvgPx: number): Promise<void> {
  const problems = await section.locator('[data-result]').evaluate((region, min) => {
    const found: string[] = [];
    const edge = region.getBoundingClientRect();
    for (const el of region.querySelectorAll<HTMLElement>('*')) {
      if (el.closest('details:not([open])') && !el.matches('summary, summary *')) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || el.closest('.visually-hidden')) continue;
      if (box.right > edge.right + 1 || box.left < edge.left - 1)
        found.push(
          `${el.tagName} ${el.className} sticks out: ${Math.round(box.left)}–${Math.round(box.right)}`,
        );
      const clip = getComputedStyle(el).overflowX;
      if ((clip === 'hidden' || clip === 'clip') && el.scrollWidth > el.clientWidth + 1)
        found.push(`${el.tagName} ${el.className} clips its text`);
    }
    for (const text of region.querySelectorAll<SVGTextElement>('svg text')) {
      const svg = text.ownerSVGElement!;
      const px = parseFloat(getComputedStyle(text).fontSize) * (svg.getScreenCTM()?.a ?? 1);
      if (px < min - 0.01) found.push(`"${text.textContent}" is ${px.toFixed(1)} px`);
      const box = text.getBoundingClientRect();
      const card = text.closest('.xp-draw-node')?.querySelector('rect.xp-box')?.getBoundingClientRect();
      const inArrow = text.closest('.xp-arrow');
      if (card && !inArrow && (box.right > card.right + 0.5 || box.bottom > card.bottom + 0.5))
        found.push(`"${text.textContent}" overflows its node card`);
      if (card && inArrow && box.right > card.left + 0.5)
        found.push(`"${text.textContent}" runs into the card`);
      const frame = svg.getBoundingClientRect();
      if (box.right > frame.right + 0.5 || box.left < frame.left - 0.5)
        found.push(`"${text.textContent}" overflows its drawing`);
    }
    return found;
  }, minSvgPx);
  assert.deepEqual(problems, [], `at ${width} px`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the window at ${width} px`);
}

/** The timeline: from 0 ms, the column's width, each mark read by keys as the answer has it. */
async function holdTimeline(page: Page, section: Locator, runs: MigrationResult[]): Promise<void> {
  const timeline = section.locator('[data-worker-timeline]');
  const svg = timeline.locator('svg.xp-timeline-svg');
  const [drawn, column] = await Promise.all([
    svg.evaluate((el) => el.getBoundingClientRect().width),
    section.locator('[data-reshard-timeline]').evaluate((el) => el.clientWidth),
  ]);
  assert.ok(Math.abs(drawn - column) <= 1, `the timeline is ${drawn} px wide in a ${column} px column`);
  const axis = await svg.locator('.xp-axis-label').allTextContents();
  assert.equal(axis[0], '0 ms');
  for (const label of axis) assert.doesNotMatch(label, /^-/);
  // each lane's rows named: served, and each other kind of reply that lane's claims met
  for (const r of runs) {
    const met = ['served', 'retry', 'redirected', 'refused'].filter(
      (kind) => kind === 'served' || r.worker.claims.some((c) => replyKind(c.reply) === kind),
    );
    assert.deepEqual(await svg.locator(`[data-lane="${r.mode}"] .xp-row-name`).allTextContents(), met);
  }
  // by keyboard: every claim of the first lane in turn, each as the answer has it
  const read = timeline.locator('[data-timeline-read]');
  await page.mouse.move(0, 0);
  await read.focus();
  // the lanes in the order drawn (each mode's last answer, in the order the modes were first run)
  const order = await svg
    .locator('[data-lane]')
    .evaluateAll((els) => els.map((el) => el.getAttribute('data-lane')));
  const lanes = order.map((mode) => runs.find((r) => r.mode === mode)!);
  const lane = lanes[0]!;
  const title = (mode: string) => (mode === 'atomic' ? 'Atomic' : 'Key by key');
  // Up and Down go from lane to lane (the pointer may have left the reading on another)
  for (let i = 0; i < lanes.length && !String(await read.textContent()).startsWith(title(lane.mode)); i += 1)
    await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Home');
  const claims = lane.worker.claims.filter((c) => c.atMs >= 0);
  for (const [i, claim] of claims.entries()) {
    if (i > 0) await page.keyboard.press('ArrowRight');
    const text = String(await read.textContent());
    const node = lane.nodes.find((n) => n.address === claim.node)!.name;
    assert.match(
      text,
      new RegExp(
        `claim ${i + 1} of ${claims.length}: at ${Math.round(claim.atMs).toLocaleString('en')} ms, ${node}, ${replyKind(claim.reply)} — `,
      ),
    );
    assert.equal(await read.getAttribute('aria-valuetext'), text);
  }
  // the other mode's lane, by Down
  if (runs.length > 1) {
    await page.keyboard.press('ArrowDown');
    assert.match(
      String(await read.textContent()),
      new RegExp(`^${runs[1]!.mode === 'atomic' ? 'Atomic' : 'Key by key'}`),
    );
  }
  // by pointer: the first mark of the first lane read where it is drawn
  const mark = svg.locator('.xp-claims').first();
  const box = (await mark.boundingBox())!;
  await page.mouse.move(box.x + 1, box.y + box.height / 2);
  assert.match(String(await read.textContent()), / ms, node \d, (served|retry|redirected|refused) — /);
}

async function runFrom(
  page: Page,
  section: Locator,
  button: string,
  answers: number,
): Promise<MigrationResult[]> {
  const results: MigrationResult[] = [];
  const got = new Promise<void>((resolve) => {
    page.on('response', async (response) => {
      if (!response.url().endsWith('/api/experiments/reshard')) return;
      results.push(((await response.json()) as { result: MigrationResult }).result);
      if (results.length === answers) resolve();
    });
  });
  const pressed = section.getByRole('button', { name: button });
  await pressed.click();
  // while the reshard runs, its buttons are disabled
  assert.ok(await section.getByRole('button', { name: 'Move its slot, and back' }).isDisabled());
  await got;
  await section.getByRole('button', { name: 'Move its slot, and back' }).waitFor({ state: 'visible' });
  await page.waitForFunction(
    () => !document.querySelector('[data-experiment="route"] [data-form]')?.hasAttribute('aria-busy'),
    undefined,
    { timeout: 180_000 },
  );
  page.removeAllListeners('response');
  for (const r of results) assert.ok(r && r.phases.length > 0, JSON.stringify(r).slice(0, 300));
  return results;
}

test(
  'every phase of both modes at both sizes is drawn as the replies counted, at 360 and 1280 px, both themes',
  { skip: noValkey9 },
  async () => {
    mkdirSync(SHOTS, { recursive: true });
    await atomicUp(explorer.site.url);
    // one link on the dive's first screen (its table of contents) reaches the reshard, on a phone and on a
    // desktop: the heading right above the explorer, after the two ways are explained
    for (const width of [360, 1280]) {
      const first = await openPage(chromium.browser, explorer.site.url + HASHTAG, { width });
      const link = first.getByRole('link', { name: 'Watch a slot move, live' }).first();
      const box = (await link.boundingBox())!;
      const screen = first.viewportSize()!.height;
      assert.ok(
        box.y + box.height <= screen,
        `the link is at ${Math.round(box.y)} px, the screen ${screen} px tall`,
      );
      await link.click();
      // (the page may scroll smoothly: wait for it to come to rest on the heading)
      await first.waitForFunction(() => {
        const top = document.querySelector('#watch-a-slot-move-live')!.getBoundingClientRect().top;
        return top >= -1 && top < window.innerHeight / 2;
      });
      // the two ways are explained before it, the explorer follows it
      const order = await first.evaluate(() => {
        const at = (el: Element | null) => el?.getBoundingClientRect().top ?? NaN;
        return [
          at(document.querySelector('#two-ways-a-slot-moves')),
          at(document.querySelector('#watch-a-slot-move-live')),
          at(document.querySelector('[data-explorer-slot="hashtag"]')),
        ];
      });
      assert.ok(order[0]! < order[1]! && order[1]! < order[2]!, JSON.stringify(order));
      await reachExplorer(first, '[data-sandbox="up"]');
      assert.ok(await first.getByRole('button', { name: /^Compare both ways/ }).isVisible());
      await first.close();
    }
    const page = await openPage(chromium.browser, explorer.site.url + HASHTAG, { width: 1280 });
    await reachExplorer(page, '[data-sandbox="up"]');
    const section = page.locator('[data-experiment="route"]');
    const runs: MigrationResult[] = [];
    runs.push(...(await runFrom(page, section, 'Move its slot, and back', 1)));
    runs.push(...(await runFrom(page, section, 'Move it atomically (Valkey 9.1)', 1)));
    // each answer checked while the page shows it: the 1,000-job ones, then the 20,000-job ones
    const check = async (shown: MigrationResult[], label: string) => {
      for (const [width, colorScheme] of LOOKS) {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme });
        for (const r of shown) {
          const stepper = section.locator(`[data-reshard-mode="${r.mode}"] [data-stepper]`);
          await holdCounts(stepper, r);
          await goTo(stepper, r.mode === 'atomic' ? 1 : 3);
          await holdLayout(page, section, width, width === 360 ? 12 : 0);
        }
        await page.waitForTimeout(50); // the timeline redraws at the new width
        await holdTimeline(page, section, shown);
        for (const [part, selector] of [
          ['timeline', '[data-reshard-timeline]'],
          ['keys', '[data-reshard-mode="keys"] [data-drawing]'],
          ['atomic', '[data-reshard-mode="atomic"] [data-drawing]'],
        ])
          await section
            .locator(selector!)
            .screenshot({ path: `${SHOTS}migration-${label}-${part}-${width}-${colorScheme}.png` });
      }
    };
    if (process.env.MIGRATION_PICTURES_DUMP)
      writeFileSync(process.env.MIGRATION_PICTURES_DUMP, JSON.stringify(runs));
    await check(runs, '1000');
    const large = await runFrom(
      page,
      section,
      `Compare both ways, ${Math.max(...MIGRATION_SIZES).toLocaleString('en')} jobs`,
      2,
    );
    assert.deepEqual(
      [...runs, ...large].map((r) => `${r.mode} ${r.jobCount}`),
      ['keys 1000', 'atomic 1000', 'keys 20000', 'atomic 20000'],
    );
    await check(large, '20000');
    await page.close();
  },
);
