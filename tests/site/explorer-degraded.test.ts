// A degraded sandbox read as what it is, in Chromium: a half-done slot move with one key on both sides
// (a MIGRATE COPY, so the watch's own MIGRATE meets BUSYKEY and cannot finish it) keeps the cluster
// degraded. The cluster parts then say so in plain words with the check's own lines, the status line says
// standalone runs work, and a standalone run is still served — the page never claims "up" or "down".
// Once the move is finished by hand, the site's watch settles the slot and the open page says "up".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AxeBuilder } from '@axe-core/playwright';
import { useExplorer } from '../support/explorer.ts';
import { leaveSlotOpen } from '../support/open-slot.ts';
import { openPage, reach, useBrowser } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '10000', EXPLORER_RATE: '10000' });
const chromium = useBrowser();
const MODULE = '/protocol/the-owned-keyspace/';

async function sandboxStatus(): Promise<{ sandbox: string; problems?: string[] }> {
  return (await fetch(`${explorer.site.url}/api/sandbox`)).json() as Promise<{
    sandbox: string;
    problems?: string[];
  }>;
}

/**
 * Leaves `fills`' slot open on both sides with a key on both: a repair can neither finish nor undo it.
 * `finish` moves the key over with REPLACE, as an operator would, and the watch can settle the slot.
 */
async function breakCluster(): Promise<{ n: number; finish(): Promise<void> }> {
  const key = '{fills}:left:both';
  const { n, migrate, close } = await leaveSlotOpen(explorer.sandbox.cluster!, [key]);
  try {
    await migrate('COPY', key);
  } catch (error) {
    close();
    throw error;
  }
  return {
    n,
    finish: async () => {
      await migrate('REPLACE', key);
      close();
    },
  };
}

test('a degraded cluster: the cluster parts say what is wrong, standalone runs still work', async () => {
  const { n, finish } = await breakCluster();
  let status = await sandboxStatus();
  for (let i = 0; i < 40 && status.sandbox !== 'degraded'; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    status = await sandboxStatus();
  }
  assert.equal(status.sandbox, 'degraded');

  // The hashtag part runs on the cluster: the note, in words, then the check's lines as text.
  const pages = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    const page = await openPage(chromium.browser, `${explorer.site.url}${MODULE}hashtag-and-slot/`, {
      width: 360,
      colorScheme,
    });
    pages.push(page);
    await page.locator('[data-explorer][data-sandbox="degraded"]').waitFor({ timeout: 30_000 });
    const note = page.locator('[data-cluster-degraded]');
    assert.match(await note.innerText(), /The sandbox’s cluster is degraded\./);
    assert.match(await note.innerText(), /standalone runs work as usual/);
    const lines = (await note.locator('li').allInnerTexts()).join('\n');
    assert.match(lines, new RegExp(`slot ${n} is left MIGRATING`));
    assert.match(
      await page.locator('[data-status-text]').innerText(),
      /for standalone runs; its cluster is degraded/,
    );
    const results = await new AxeBuilder({ page }).include('[data-explorer]').analyze();
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      bad.map((v) => v.id),
      [],
      `axe, ${colorScheme}`,
    );
  }
  await pages[0]!.close();

  // The grammar part runs only standalone: no note, the status says degraded, and a run is served.
  const grammar = await openPage(chromium.browser, `${explorer.site.url}${MODULE}braced-grammar/`, {
    width: 360,
  });
  await grammar.locator('[data-explorer][data-sandbox="degraded"]').waitFor({ timeout: 30_000 });
  assert.equal(await grammar.locator('[data-cluster-degraded]').count(), 0);
  const keys = grammar.locator('[data-experiment="keys"]');
  await keys.locator('button[type="submit"]').click();
  await keys.locator('[data-result] .xp-proof').waitFor({ timeout: 30_000 });
  // a standalone run served is no news about the cluster: the status line still says degraded
  assert.equal(await grammar.locator('[data-explorer]').getAttribute('data-sandbox'), 'degraded');
  await grammar.close();

  // Finished by hand: the watch settles the slot, and the page still open drops the note and says up.
  await finish();
  const page = pages[1]!;
  // The explorer's code (its status poll among it) loads once the reader nears it: scroll there.
  await reach(page, '[data-explorer-slot]');
  await page.locator('[data-explorer][data-sandbox="up"]').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('[data-cluster-degraded]').count(), 0);
  assert.match(await page.locator('[data-status-text]').innerText(), /^Live on the sandbox Valkey/);
  await page.close();
});
