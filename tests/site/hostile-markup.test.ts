// A queue name that is markup, run through every experiment and the console in Chromium: it is a valid
// name (any byte but braces and NUL, 28 of the 64 bytes allowed), so each experiment really runs it and
// shows it back, and everywhere it must read as the text typed, never become an element or run a script.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { utf8 } from '../../server/contract/keyspace/index.ts';
import { LIMITS } from '../../server/contract/limits.ts';
import { useExplorer } from '../support/explorer.ts';
import { openPage, reach, reachExplorer, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const MODULE = '/protocol/the-owned-keyspace/';
const GRAMMAR = `${MODULE}braced-grammar/`;
const HASHTAG = `${MODULE}hashtag-and-slot/`;
const HOSTILE = '<img src=x onerror=alert(1)>';

const chromium = useBrowser();

/** The page, with every dialog it opens recorded (an injected onerror=alert would open one). */
async function open(route: string): Promise<{ page: Page; dialogs: string[] }> {
  const page = await openPage(chromium.browser, explorer.site.url + route, { width: 1280 });
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await reachExplorer(page, '[data-sandbox="up"]');
  return { page, dialogs };
}

/** No element was made from the name: no image, no onerror attribute anywhere, no dialog. */
async function noElementMade(page: Page, dialogs: string[], where: string): Promise<void> {
  const made = await page.evaluate(() => document.querySelectorAll('img[src="x"], [onerror]').length);
  assert.equal(made, 0, `${where}: an element was made from the name`);
  assert.deepEqual(dialogs, [], `${where}: a script ran`);
}

/** The experiment's section, with the hostile name typed as its queue name. */
async function withHostileQueue(page: Page, experiment: string): Promise<Locator> {
  const section = page.locator(`[data-experiment="${experiment}"]`);
  await section.getByLabel('Queue name', { exact: true }).fill(HOSTILE);
  return section;
}

test('the hostile name is within the queue cap, so it reaches every experiment', () => {
  assert.ok(utf8(HOSTILE).length <= LIMITS.queueBytes);
});

test('braced grammar page: keys, the layout check and the console show the name as text', async () => {
  const { page, dialogs } = await open(GRAMMAR);

  const keys = await withHostileQueue(page, 'keys');
  await keys.getByRole('button', { name: 'Enqueue on the sandbox' }).click();
  await keys.locator('.xp-accepted').waitFor();
  assert.equal(await keys.locator('.xp-accepted code').nth(1).textContent(), HOSTILE);
  assert.ok((await keys.locator('.xp-live').textContent())!.includes(`emq:{${HOSTILE}}:pending`));
  await noElementMade(page, dialogs, 'keys');

  // the layout check puts the name into its key fields' value attributes, then into a marked key
  const layout = await withHostileQueue(page, 'layout');
  assert.equal(await layout.getByLabel('Key 2').inputValue(), `emq:{${HOSTILE}}:pending`);
  await layout.getByRole('button', { name: 'One byte changed' }).click();
  await layout.getByRole('button', { name: 'Call EMQ.ENQUEUE' }).click();
  const standalone = layout.locator('[data-node="standalone"]');
  await standalone.locator('.xp-marked').waitFor();
  assert.ok((await standalone.locator('.xp-marked').textContent())!.includes('<img src=x onerror=alert(1)'));
  await noElementMade(page, dialogs, 'layout');

  const console = page.locator('emq-console');
  await reach(page, 'emq-console'); // its code loads as the reader nears it
  await console.locator('button[type="submit"]:not([disabled])').waitFor();
  await console
    .getByLabel('Commands, one per line')
    .fill(`ECHO "${HOSTILE}"\nDEL "emq:{${HOSTILE}}:pending"`);
  await console.getByRole('button', { name: 'Run' }).click();
  await console.locator('.cn-line').nth(1).waitFor();
  const [echo, del] = await console.locator('.cn-line').all();
  assert.equal(await echo!.locator('.cn-input').textContent(), `> ECHO "${HOSTILE}"`);
  assert.equal((await echo!.locator('.cn-reply').textContent())!.trim(), JSON.stringify(HOSTILE));
  assert.ok((await del!.locator('.cn-input').textContent())!.includes(`{${HOSTILE}}`));
  await noElementMade(page, dialogs, 'console');
  await page.close();
});

test('hashtag page: the slot, route and reshard views show the name as text', async () => {
  const { page, dialogs } = await open(HASHTAG);

  const slot = await withHostileQueue(page, 'slot');
  assert.equal(await slot.locator('[data-field="key"]').textContent(), `emq:{${HOSTILE}}:pending`);
  assert.equal(await slot.locator('[data-field="hashtag"]').textContent(), HOSTILE);
  await slot.locator('[data-field="agree"]', { hasText: 'the same slot' }).waitFor();
  assert.ok((await slot.locator('[data-slot-grid]').textContent())!.includes(`emq:{${HOSTILE}}:*`));
  await slot.locator('[data-crossslot] [data-reply]').first().waitFor();
  assert.ok((await slot.locator('[data-crossslot]').textContent())!.includes(`emq:{${HOSTILE}}:`));
  await noElementMade(page, dialogs, 'slot');

  const route = await withHostileQueue(page, 'route');
  assert.ok((await route.locator('[data-slot-grid]').textContent())!.includes(`emq:{${HOSTILE}}:*`));
  await route.getByRole('button', { name: 'Route it on the cluster' }).click();
  await route.locator('[data-route="served"]').waitFor();
  assert.ok((await route.locator('[data-route="served"]').textContent())!.includes(`emq:{${HOSTILE}}:`));
  await noElementMade(page, dialogs, 'route');

  await route.getByRole('button', { name: 'Move its slot, and back' }).click();
  const summary = route.locator('[data-reshard-mode="keys"] [data-reshard="summary"]');
  // The summary sits in the list of every phase, which opens on demand: there, though closed.
  await summary.waitFor({ state: 'attached', timeout: 60_000 });
  assert.equal(await summary.locator('code.xp-key').first().textContent(), HOSTILE);
  await noElementMade(page, dialogs, 'reshard');
  await page.close();
});

test('module page: the two executors show the name as text in every step', async () => {
  const { page, dialogs } = await open(MODULE);
  const section = await withHostileQueue(page, 'two-executors');
  await section.getByRole('button', { name: 'Run both executors' }).click();
  await section.locator('[data-verdict]').waitFor();
  assert.equal(await section.locator('[data-verdict]').getAttribute('data-verdict'), 'same');
  const changes = await section.locator('.xp-keyspaces pre').first().textContent();
  assert.ok(changes!.includes(`emq:{${HOSTILE}}:`), changes!);
  await noElementMade(page, dialogs, 'two executors');
  await page.close();
});
