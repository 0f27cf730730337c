// Every course page as a reader sees it, saved for a person to look at: full-page screenshots at 360 and
// 1280 px, light and dark, in test-results/screenshots/ (<page>-<width>-<theme>.png). A picture is not a
// check, so this is a script, not a test; tests/site/pages.test.ts holds what can be asserted (no page
// scrolls sideways at either width in either theme).
// Run: node scripts/screenshots.ts
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { COURSE_ROUTES, ROOT, startSite } from './site.ts';

const dir = join(ROOT, 'test-results/screenshots');
mkdirSync(dir, { recursive: true });
const site = await startSite();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
try {
  for (const viewport of [
    { width: 360, height: 760 },
    { width: 1280, height: 900 },
  ]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ viewport, colorScheme });
      const page = await context.newPage();
      for (const route of COURSE_ROUTES) {
        await page.goto(site.url + route);
        const slug = route === '/' ? 'home' : route.replace(/^\/|\/$/g, '').replace(/\//g, '--');
        const path = join(dir, `${slug}-${viewport.width}-${colorScheme}.png`);
        await page.screenshot({ path, fullPage: true });
        console.log(path);
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  await site.close();
}
