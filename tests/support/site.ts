// The site tests' browser: Debian's Chromium through playwright-core, the viewports the tests use, and
// the built site with a Chromium for one test file. Building and starting the site is scripts/site.ts's.
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContextOptions } from 'playwright-core';
import { startSite, type Site } from '../../scripts/site.ts';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export const VIEWPORTS: Record<'phone' | 'desktop', BrowserContextOptions['viewport']> = {
  phone: { width: 360, height: 760 },
  desktop: { width: 1280, height: 900 },
};

/** The built site and a Chromium for one test file: started before its tests, stopped after them. */
export function useCourse(env: NodeJS.ProcessEnv = {}): { readonly site: Site; readonly browser: Browser } {
  let site: Site | undefined;
  let browser: Browser | undefined;
  before(async () => {
    site = await startSite(env);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
  });
  return {
    get site() {
      return site!;
    },
    get browser() {
      return browser!;
    },
  };
}
