// The live explorer as a reader uses it, in Chromium, against a sandbox this file owns: the slot of a
// generated name equal to CLUSTER KEYSLOT; an edited byte refused and highlighted; the reserve sequence;
// the two executors' keyspaces the same; a bad name refused; axe; and no layout shift when the island
// replaces its fallback.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Valkey } from 'iovalkey';
import type { Page } from 'playwright-core';
import { useExplorer } from '../support/explorer.ts';
import { seededRandom } from '../../server/seeded-random.ts';
import { COURSE_ROUTES } from '../../scripts/site.ts';
import { axeIn, openPage, useBrowser, reachExplorer } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const MODULE = '/protocol/the-owned-keyspace/';
const GRAMMAR = `${MODULE}braced-grammar/`;
const HASHTAG = `${MODULE}hashtag-and-slot/`;
const RESERVE = `${MODULE}reserve/`;
const SEED = Number(process.env.TEST_SEED ?? Date.now() % 100_000);

const chromium = useBrowser();

/** A page with its island arrived and wired. */
async function open(route: string, width = 1280, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await openPage(chromium.browser, explorer.site.url + route, { width, colorScheme });
  await reachExplorer(page);
  await page.locator('[data-explorer][data-sandbox="up"]').waitFor();
  return page;
}

async function clusterKeyslot(key: string): Promise<number> {
  const admin = new Valkey(explorer.sandbox.cluster!.url.split(',')[0]!);
  try {
    return Number(await admin.call('CLUSTER', 'KEYSLOT', key));
  } finally {
    admin.disconnect();
  }
}

function generatedName(random: () => number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-_.:é中';
  const length = 1 + Math.floor(random() * 20);
  return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
}

test(`slot: a generated queue name typed in the page has the slot CLUSTER KEYSLOT gives (seed ${SEED})`, async () => {
  const random = seededRandom(SEED);
  const page = await open(HASHTAG);
  const section = page.locator('[data-experiment="slot"]');
  for (let i = 0; i < 5; i++) {
    const name = generatedName(random);
    await section.getByLabel('Queue name', { exact: true }).fill('');
    await section.getByLabel('Queue name', { exact: true }).pressSequentially(name, { delay: 5 });
    const key = `emq:{${name}}:pending`;
    assert.equal(await section.locator('[data-field="key"]').textContent(), key);
    // the browser's slot is there at once; the cluster node's a moment later
    const browserSlot = Number(await section.locator('[data-field="slot"]').textContent());
    await section.locator('[data-field="agree"]', { hasText: 'the same slot' }).waitFor();
    const serverSlot = Number(await section.locator('[data-field="server-slot"]').textContent());
    const expected = await clusterKeyslot(key);
    assert.equal(browserSlot, expected, `${name}: the slot computed in the browser`);
    assert.equal(serverSlot, expected, `${name}: the slot the page shows from the cluster node`);
    assert.equal(await section.locator('[data-pin="queue"]').textContent(), String(expected));
    // and the live CROSSSLOT call mixing two queues
    await section.locator('[data-crossslot] [data-reply]', { hasText: 'CROSSSLOT' }).waitFor();
  }
  assert.equal(await section.locator('[data-pin="reserve"]').textContent(), '9051');

  // any key: the protocol's vectors
  await section.getByLabel('any key', { exact: true }).check();
  for (const [key, slot] of [
    ['123456789', 12739],
    ['foo{}{bar}', 8363],
    ['foo{{bar}}zap', 4015],
  ] as const) {
    await section.getByLabel('Any key', { exact: true }).fill(key);
    assert.equal(await section.locator('[data-field="slot"]').textContent(), String(slot));
    await section.locator('[data-field="agree"]', { hasText: 'the same slot' }).waitFor();
    assert.equal(await section.locator('[data-field="server-slot"]').textContent(), String(slot));
  }
  await page.close();
});

test('layout: one byte edited in a key is refused with EMQKEY and that byte is highlighted', async () => {
  const page = await open(GRAMMAR);
  const section = page.locator('[data-experiment="layout"]');
  const key2 = section.getByLabel('Key 2');
  assert.equal(await key2.inputValue(), 'emq:{orders}:pending');

  // the exact call is accepted; the cluster node refuses it with EMQWIRE
  await section.getByRole('button', { name: 'Call EMQ.ENQUEUE' }).click();
  await section.locator('[data-node="standalone"]', { hasText: 'served' }).waitFor();
  assert.match(
    await section.locator('[data-node="cluster"]').innerText(),
    /EMQWIRE expected a standalone server but cluster mode is enabled/,
  );

  // a reader edits one byte: orders → ordErs
  await key2.fill('emq:{ordErs}:pending');
  await section.getByRole('button', { name: 'Call EMQ.ENQUEUE' }).click();
  const standalone = section.locator('[data-node="standalone"]');
  await standalone.locator('.xp-byte').waitFor();
  assert.match(await standalone.innerText(), /EMQKEY key 2 differs at byte 8/);
  assert.equal(await standalone.locator('.xp-byte').textContent(), 'E');
  assert.equal(await standalone.locator('.xp-byte').getAttribute('data-offset'), '8');
  assert.equal(await standalone.locator('[data-unchanged]').getAttribute('data-unchanged'), 'true');

  // the presets: one byte changed, and the empty queue name
  await section.getByRole('button', { name: 'One byte changed' }).click();
  assert.equal(await key2.inputValue(), 'emq:{orderz}:pending');
  await section.getByRole('button', { name: 'Empty queue name' }).click();
  assert.equal(await section.getByLabel('Key 1').inputValue(), 'emq:{}:job:JOB0Nb1VTbfnu4');
  await section.getByRole('button', { name: 'Call EMQ.ENQUEUE' }).click();
  await standalone
    .getByText(/has an empty queue name/)
    .first()
    .waitFor();

  // another verb: the fields follow its declared keys
  await section.getByLabel('Verb').selectOption('claim');
  assert.equal(await section.getByLabel('Key 3').inputValue(), 'emq:{orders}:job:');
  await page.close();
});

test('reserve: the sequence reads step by step, each command and reply from the server', async () => {
  const page = await open(RESERVE);
  const section = page.locator('[data-experiment="reserve"]');
  await section.getByRole('button', { name: 'Run the reserve sequence' }).click();
  await section.locator('.xp-step[data-outcome="ok"]').first().waitFor();
  const steps = section.locator('.xp-step');
  assert.equal(await steps.count(), 7);
  const text = async (i: number) => (await steps.nth(i).innerText()).replace(/\s+/g, ' ');
  const outcome = (i: number) => steps.nth(i).getAttribute('data-outcome');

  assert.match(await text(0), /wire 4 connector.*GET \{emq\}:version → replies \(nil\)/);
  assert.match(
    await text(0),
    /SET \{emq\}:version echomq:4\.0\.0 NX → replies OK.*GET \{emq\}:version → replies echomq:4\.0\.0/,
  );
  assert.equal(await outcome(0), 'ok');
  assert.match(await text(1), /native write.*EMQWIRE expected wire identity 'echomq:6\.0\.0'/);
  assert.equal(await outcome(1), 'refused');
  assert.match(await text(2), /wire 6 connector.*not installed/);
  assert.equal(await outcome(2), 'refused');
  assert.match(await text(3), /operator.*installed echomq:6\.0\.0/);
  assert.match(
    await text(4),
    /wire 6 connector.*GET \{emq\}:version → replies echomq:6\.0\.0.*fence verified/,
  );
  assert.equal(await outcome(4), 'ok');
  assert.match(await text(5), /native write.*enqueued \(1\)/);
  assert.match(await text(6), /wire 4 connector.*refuses this server/);
  assert.equal(await outcome(6), 'refused');
  await page.close();
});

test('two executors: an edited sequence runs through both, and the page says "same"', async () => {
  const page = await open(MODULE);
  const section = page.locator('[data-experiment="two-executors"]');
  const selects = section.locator('select[name="step"]');
  const before = await selects.count();
  await section.getByRole('button', { name: 'Remove step 3' }).click();
  assert.equal(await selects.count(), before - 1);
  await section.getByRole('button', { name: 'Add a step' }).click();
  await selects.last().selectOption('complete');
  await section.getByRole('button', { name: 'Run both executors' }).click();
  await section.locator('[data-verdict]').waitFor();
  assert.equal(await section.locator('[data-verdict]').getAttribute('data-verdict'), 'same');
  assert.match(await section.locator('[data-verdict]').innerText(), /same/);
  assert.equal(await section.locator('.xp-run').count(), before);
  // each step shows both replies, equal, and both keyspaces
  for (const run of await section.locator('.xp-run').all()) {
    assert.equal(
      await run.locator('[data-side="scripted"]').textContent(),
      await run.locator('[data-side="native"]').textContent(),
    );
  }
  // each step's keyspace as what it changed; the call each side sent, side by side
  const first = section.locator('.xp-run').first();
  await first.getByText('What this step changed in each keyspace').click();
  assert.match(await first.locator('.xp-keyspaces pre').first().innerText(), /^\+ emq:\{orders\}:job:/m);
  await first.getByText('The call each executor sent').click();
  assert.match(await first.locator('[data-call]').first().innerText(), /^> EVALSHA [0-9a-f]{40} 2 /);
  assert.match(await first.locator('[data-call]').nth(1).innerText(), /^> EMQ\.ENQUEUE 2 /);
  // an error reply reads as redis-cli's (error) …, never as raw JSON
  assert.doesNotMatch(await section.innerText(), /\{"error"/);
  await page.close();
});

test('keys: a bad name is refused with the proof that no command reached the server; a good one is read back', async () => {
  const page = await open(GRAMMAR);
  const section = page.locator('[data-experiment="keys"]');
  await section.getByLabel('Queue name', { exact: true }).fill('or{ders');
  await section.getByRole('button', { name: 'Enqueue on the sandbox' }).click();
  await section.getByText('BRACE').waitFor();
  assert.match(await section.innerText(), /byte 2 is '\{'/);
  assert.equal(await section.locator('[data-reached]').getAttribute('data-reached'), '0');

  await section.getByLabel('Queue name', { exact: true }).fill('');
  await section.getByRole('button', { name: 'Enqueue on the sandbox' }).click();
  await section.getByText('EMPTY_QUEUE').waitFor();

  // a refusal of the API itself is shown as its message
  await section.getByLabel('Queue name', { exact: true }).fill('q'.repeat(65));
  await section.getByRole('button', { name: 'Enqueue on the sandbox' }).click();
  await section.getByText('BAD_INPUT').waitFor();
  assert.match(await section.innerText(), /queue: is 65 bytes long; at most 64 are allowed/);

  await section.getByLabel('Queue name', { exact: true }).fill('fills');
  await section.getByRole('button', { name: 'Enqueue on the sandbox' }).click();
  await section.locator('.xp-accepted', { hasText: 'enqueued' }).waitFor();
  assert.match(await section.locator('.xp-live').innerText(), /emq:\{fills\}:pending/);
  // every fixed-type key and the job row; the row base emq:{q}:job: is a prefix, not a key
  const rows = await section.locator('.xp-key-row .xp-key').allInnerTexts();
  assert.equal(rows.length, 13);
  assert.ok(!rows.some((key) => key.endsWith(':job:')), rows.join(' '));
  await page.close();
});

test('the part picker opens the module explorer on its part', async () => {
  const page = await open(MODULE);
  await page.locator('#tab-hashtag').click();
  await page.locator('[data-explorer-open="slot"]').click();
  assert.ok(await page.locator('[data-view="slot"]').isVisible());
  assert.ok(!(await page.locator('[data-view="keys"]').isVisible()));
  await page.locator('#tab-reserve').click();
  await page.locator('[data-explorer-open="reserve"]').click();
  assert.ok(await page.locator('[data-view="reserve"]').isVisible());
  await page.close();
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`axe: no serious or critical violation with the island loaded and run (${colorScheme})`, async () => {
    const found: string[] = [];
    for (const route of COURSE_ROUTES.slice(1)) {
      const page = await open(route, 1280, colorScheme);
      const submit = page.locator('[data-experiment] button[type="submit"]').first();
      if (await submit.isVisible()) {
        await submit.click();
        await page.waitForLoadState('networkidle');
      }
      const results = await axeIn(page, colorScheme).include('[data-explorer-slot]').analyze();
      for (const v of results.violations) {
        if (v.impact === 'serious' || v.impact === 'critical')
          found.push(`${route} [${v.impact}] ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      }
      await page.close();
    }
    assert.deepEqual(found, []);
  });
}

test('no layout shift: the island takes exactly the fallback’s box, at 360 and 1280 px', async () => {
  for (const width of [360, 1280]) {
    for (const route of COURSE_ROUTES.slice(1)) {
      const page = await chromium.browser.newPage({ viewport: { width, height: 900 } });
      // hold the island back until the fallback has been measured
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/_server-islands/**', async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(explorer.site.url + route);
      const slot = page.locator('[data-explorer-slot]');
      assert.equal(await page.locator('[data-explorer][data-sandbox="loading"]').count(), 1);
      const fallback = (await slot.boundingBox())!;
      const below = (await page.locator('[data-explorer-slot] ~ *').first().boundingBox())!;
      release();
      await page.locator('[data-explorer]:not([data-sandbox="loading"])').waitFor();
      const island = (await slot.boundingBox())!;
      const belowAfter = (await page.locator('[data-explorer-slot] ~ *').first().boundingBox())!;
      assert.deepEqual(island, fallback, `${route} at ${width} px: the slot's box`);
      assert.equal(belowAfter.y, below.y, `${route} at ${width} px: what follows stays put`);
      await page.close();
    }
  }
});

test('a failed island request turns "Connecting…" into a plain message, and the browser-computed keys stay', async () => {
  const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.clock.install();
  await page.route('**/_server-islands/**', (route) => route.abort());
  await page.goto(explorer.site.url + GRAMMAR);
  const status = page.locator('[data-explorer] [data-status-text]').first();
  assert.match((await status.textContent()) ?? '', /Connecting/);
  // the explorer's code, which says so, loads once the reader reaches it
  await page.locator('[data-explorer-slot]').scrollIntoViewIfNeeded();
  await page.locator('emq-explorer:defined').waitFor();
  await page.clock.fastForward(13_000);
  await page.locator('[data-explorer][data-sandbox="unreachable"]').waitFor();
  assert.match((await status.textContent()) ?? '', /did not load/);
  assert.ok((await page.locator('[data-experiment="keys"]').textContent())!.includes('emq:{orders}:pending'));
  await context.close();
});
