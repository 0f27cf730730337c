// The site tests' browser: Debian's Chromium through playwright-core, the viewports the tests use, and
// the built site with a Chromium for one test file. Building and starting the site is scripts/site.ts's.
import { after, before } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import type { Site } from '../../scripts/site.ts';
import { boundedTeardown } from './teardown.ts';
import { useSite } from './use-site.ts';

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

/** A Chromium for one test file: launched before its tests, closed after them. */
export function useBrowser(): { readonly browser: Browser } {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launchBrowser();
  });
  after(() => boundedTeardown(async () => browser?.close()));
  return {
    get browser() {
      return browser!;
    },
  };
}

export interface PageOptions {
  width?: number;
  colorScheme?: 'light' | 'dark';
  javaScriptEnabled?: boolean;
}

/** A page at `url` in a browser context of its own, which closes with the page. */
export async function openPage(
  browser: Browser,
  url: string,
  { width = 1280, colorScheme = 'light', javaScriptEnabled = true }: PageOptions = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width, height: 900 },
    colorScheme,
    javaScriptEnabled,
  });
  const page = await context.newPage();
  // After a file's last test the browser may already be closing, and the context with it.
  page.on('close', () => void context.close().catch(() => {}));
  await page.goto(url);
  return page;
}

/**
 * The explorer, reached as a reader reaches it: its code loads only when its section nears the viewport
 * (src/lib/when-needed.ts), so this scrolls the page's first explorer into view and waits until it is
 * wired (defined) in `state` — by default, once its island has arrived, whatever the sandbox said.
 */
export async function reachExplorer(page: Page, state = ':not([data-sandbox="loading"])'): Promise<Locator> {
  await page.locator('[data-explorer-slot]').first().scrollIntoViewIfNeeded();
  const root = page.locator(`emq-explorer:defined${state}`).first();
  await root.waitFor();
  return root;
}

/** A part whose code loads when it nears the viewport (the console, the exercises), scrolled to. */
export async function reach(page: Page, selector: string): Promise<void> {
  await page.locator(selector).first().scrollIntoViewIfNeeded();
}

/** The built site and a Chromium for one test file: started before its tests, stopped after them. */
export function useCourse(env: NodeJS.ProcessEnv = {}): { readonly site: Site; readonly browser: Browser } {
  const site = useSite(env);
  const chromium = useBrowser();
  return {
    site,
    get browser() {
      return chromium.browser;
    },
  };
}

/** The axe rules whose outcome depends on colours: all that the dark theme changes (the DOM is the same). */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * axe on `page` in `colorScheme`: every rule in the light theme; in the dark theme, at the same width,
 * only the rules that read colours, as every other rule reads a DOM the theme does not change.
 */
export function axeIn(page: Page, colorScheme: 'light' | 'dark'): AxeBuilder {
  const axe = new AxeBuilder({ page });
  return colorScheme === 'dark' ? axe.withRules(COLOUR_RULES) : axe;
}
