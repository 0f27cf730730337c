// Every course page in Chromium with the site's Content-Security-Policy enforced: the policy is there,
// no violation is reported (the `securitypolicyviolation` event, or a CSP error in the console), the
// server island arrives, and the live parts still work under it — the explorer runs an experiment, the
// console runs a line, an exercise is checked by the sandbox.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { COURSE_ROUTES } from '../../scripts/site.ts';
import { useExplorer } from '../support/explorer.ts';
import { useBrowser, reach } from '../support/site.ts';

const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000' });
const chromium = useBrowser();
const MODULE = '/protocol/the-owned-keyspace/';

interface Watched {
  page: Page;
  /** Every violation and CSP console error so far. */
  violations(): Promise<string[]>;
}

/** A page at `route` watched for CSP violations from before its first byte. */
async function watched(route: string): Promise<Watched> {
  const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('close', () => void context.close().catch(() => {}));
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to (execute|load|apply|connect|frame)/i.test(message.text()))
      consoleErrors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`));
  // Run by the browser before the page's own scripts, and not subject to the page's policy.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`${event.violatedDirective} blocked ${event.blockedURI || 'inline'}: ${event.sample}`),
    );
  });
  const response = await page.goto(explorer.site.url + route);
  const policy = (await response!.allHeaders())['content-security-policy'] ?? '';
  assert.match(policy, /script-src 'self'/, `${route} is served with the policy`);
  return {
    page,
    violations: async () => [
      ...(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)),
      ...consoleErrors,
    ],
  };
}

for (const route of [...COURSE_ROUTES, '/no-such-page/']) {
  test(`${route} with the policy enforced: no violation; its scripts ran`, async () => {
    const { page, violations } = await watched(route);
    await page.waitForLoadState('load');
    // The theme script is inline: it ran when the root says JavaScript is on.
    assert.equal(await page.evaluate(() => document.documentElement.dataset.js), '');
    if (await page.locator('emq-explorer').count()) {
      // The server island (an inline loader, then the island's HTML) arrived and was wired.
      await page.locator('[data-explorer][data-sandbox="up"]').waitFor();
    }
    await page.waitForTimeout(300);
    assert.deepEqual(await violations(), []);
    await page.close();
  });
}

test('under the policy the explorer runs an experiment, the console a line, an exercise its check', async () => {
  const { page, violations } = await watched(`${MODULE}hashtag-and-slot/`);
  await page.locator('[data-explorer][data-sandbox="up"]').waitFor();

  // The explorer: the cluster node's slot for a typed queue name (a fetch to the API).
  const slot = page.locator('[data-experiment="slot"]');
  await slot.getByLabel('Queue name', { exact: true }).fill('');
  await slot.getByLabel('Queue name', { exact: true }).pressSequentially('billing', { delay: 5 });
  await slot.locator('[data-field="agree"]', { hasText: 'the same slot' }).waitFor();

  // The console: the page's example, run.
  const consolePanel = page.locator('.cn-panel');
  await reach(page, 'emq-console'); // its code loads as the reader nears it
  await page.locator('emq-console button[type="submit"]:not([disabled])').waitFor();
  await consolePanel.getByRole('button', { name: 'Run' }).click();
  await consolePanel.locator('.cn-line .cn-reply').first().waitFor();
  assert.ok((await consolePanel.locator('.cn-line .cn-reply').first().innerText()).trim().length > 0);

  // An exercise: CLUSTER KEYSLOT decides.
  const exercise = page.locator('[data-exercise="slot-same-as-vector"]');
  await exercise.locator('input').fill('foo{123456789}');
  await exercise.locator('input').press('Enter');
  await exercise
    .getByRole('status')
    .filter({ hasText: /^Right\./ })
    .waitFor();

  assert.deepEqual(await violations(), []);
  await page.close();
});
