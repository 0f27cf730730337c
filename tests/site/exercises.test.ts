// Check your understanding, as a reader does it by keyboard alone: each answer is checked by the sandbox
// (the module's layout check, CLUSTER KEYSLOT), the verdict is spoken through a status region in the
// reader's own terms (never a key of the hidden call), progress is kept across a reload in this browser,
// and a question's choices are one a row, each wrapping under itself, the item's number by its question.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { slot } from '../../server/contract/keyspace/index.ts';
import { useExplorer } from '../support/explorer.ts';
import { openPage, reach, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const MODULE = '/protocol/the-owned-keyspace/';

const chromium = useBrowser();

async function open(route: string, width: number): Promise<Page> {
  const page = await openPage(chromium.browser, explorer.site.url + route, { width });
  await reach(page, 'emq-exercises');
  await page.locator('emq-exercises button:not([disabled])').first().waitFor();
  return page;
}

/** Types an answer by keyboard into the exercise's field and submits it with Enter. */
async function answer(page: Page, id: string, text: string): Promise<string> {
  const item = page.locator(`[data-exercise="${id}"]`);
  await item.locator('input').focus();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  const status = item.getByRole('status');
  await status.filter({ hasText: /Right\.|Not yet\./ }).waitFor();
  return status.innerText();
}

test('the grammar dive’s exercises at 360 px, by keyboard: the module decides, progress is kept', async () => {
  const page = await open(`${MODULE}braced-grammar/`, 360);
  assert.match(
    await answer(page, 'grammar-schedule-key', 'emq:{billing}:pending'),
    /^Not yet\. Your key matches the one the module builds for 14 bytes \(emq:\{billing\}:\), then differs at byte 14, counting from 0\./,
  );
  assert.match(await answer(page, 'grammar-schedule-key', 'emq:{billing}:schedule'), /^Right\./);
  assert.match(await answer(page, 'grammar-byte-7', 'emq:{orders}:pendinX'), /^Not yet\. .*byte 19/);
  assert.match(await answer(page, 'grammar-byte-7', 'emq:{orDers}:pending'), /^Right\. .*differs at byte 7/);
  await page.reload();
  await reach(page, 'emq-exercises');
  await page.locator('emq-exercises button:not([disabled])').first().waitFor();
  assert.equal(await page.locator('[data-progress]').innerText(), '2 of 3 solved in this browser.');
  assert.match(
    await page.locator('[data-exercise="grammar-byte-7"]').getByRole('status').innerText(),
    /Solved before/,
  );
  await page.close();
});

test('the slot dive’s exercises at 1280 px: CLUSTER KEYSLOT decides; the MOVED question by keyboard; axe', async () => {
  const page = await open(`${MODULE}hashtag-and-slot/`, 1280);
  let name = 'q0';
  for (let i = 0; slot(`emq:{${name}}:pending`) > 100; i += 1) name = `q${i}`;
  assert.match(
    await answer(page, 'slot-low-queue', 'orders'),
    /^Not yet\. Its keys land on slot 105, not on a slot from 0 to 100\./,
  );
  assert.match(await answer(page, 'slot-low-queue', name), /^Right\./);
  assert.match(
    await answer(page, 'slot-same-as-vector', 'foo{123456789}'),
    /^Right\. The cluster says slot 12739/,
  );

  const choice = page.locator('[data-exercise="slot-moved-or-emqwire"]');
  await choice.getByLabel('EMQWIRE').focus();
  await page.keyboard.press('ArrowRight'); // radio groups move by arrow keys
  assert.equal(await choice.getByLabel('MOVED').isChecked(), true);
  await page.keyboard.press('Enter');
  await choice.getByRole('status').filter({ hasText: 'Right.' }).waitFor();
  assert.match(await choice.getByRole('status').innerText(), /EMQWIRE expected a standalone server/);

  const axe = await new AxeBuilder({ page }).include('.ex-panel').analyze();
  assert.deepEqual(
    axe.violations.map((v) => v.id),
    [],
  );
  await page.close();
});

test('a miss is told in the reader’s terms: their key and the byte where it parts, never the hidden call’s key 2', async () => {
  const page = await open(MODULE, 1280);
  const verdict = await answer(page, 'module-pending-key', 'emq:mira:pending');
  assert.doesNotMatch(verdict, /key 2|EMQKEY|EMQ\.ENQUEUE/);
  assert.match(
    verdict,
    /^Not yet\. Your key matches the one the module builds for 4 bytes \(emq:\), then differs at byte 4, counting from 0\./,
  );
  assert.match(await answer(page, 'module-pending-key', 'emq:{mira}:pending'), /^Right\./);
  await page.close();
});

for (const width of [360, 1280]) {
  test(`choices at ${width} px: one a row, each wrapping under its own text, the number drawn on the question`, async () => {
    const page = await open(`${MODULE}hashtag-and-slot/`, width);
    for (const item of await page.locator('.ex-item').all()) {
      // the number is drawn before the question itself (a counter), and the list draws no marker
      const before = await item
        .locator('.ex-question')
        .evaluate((q) => getComputedStyle(q, '::before').content);
      assert.match(before, /^counter\(exercise\)/);
      assert.equal(await item.evaluate((li) => getComputedStyle(li).listStyleType), 'none');
      const choices = await item.locator('.ex-choice').all();
      let below = 0;
      for (const choice of choices) {
        const radio = (await choice.locator('input').boundingBox())!;
        const lines = await choice.evaluate((label) => {
          const range = document.createRange();
          range.setStartAfter(label.querySelector('input')!);
          range.setEnd(label, label.childNodes.length);
          return [...range.getClientRects()].map((r) => ({ left: r.left, top: r.top, bottom: r.bottom }));
        });
        // every line of the choice's text starts right of its radio, and below the choice before it
        for (const line of lines) {
          assert.ok(
            line.left >= radio.x + radio.width,
            `a line of a choice wraps under its radio at ${width} px`,
          );
          assert.ok(line.top >= below - 1, `two choices share a line at ${width} px`);
        }
        below = Math.max(...lines.map((l) => l.bottom));
      }
    }
    await page.close();
  });
}
