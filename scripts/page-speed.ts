// Lighthouse-style mobile figures for every course page, printed (never asserted): Chromium at 412 px
// wide (DPR 1.75), the network throttled through CDP to Lighthouse's "slow 4G" (150 ms RTT, 1.6 Mbit/s
// down, 750 kbit/s up) and the CPU slowed 4×, a fresh cache per page. FCP, LCP, CLS, long tasks
// (the time over 50 ms summed, a TBT estimate) and the bytes transferred, the island's included.
// Run: node scripts/page-speed.ts [runs per page, default 3]  (medians are printed)
import { chromium } from 'playwright-core';
import { observeMetrics, readMetrics, type PageMetrics } from './page-metrics.ts';
import { COURSE_ROUTES, startSite } from './site.ts';

const RUNS = Number(process.argv[2] ?? 3);
const site = await startSite();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});

interface Run extends PageMetrics {
  bytes: number;
  requests: number;
}

async function load(route: string): Promise<Run> {
  const context = await browser.newContext({
    viewport: { width: 412, height: 823 },
    deviceScaleFactor: 1.75,
    isMobile: true,
    hasTouch: true,
  });
  await observeMetrics(context);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 150,
    downloadThroughput: (1.6 * 1024 * 1024) / 8,
    uploadThroughput: (750 * 1024) / 8,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  let bytes = 0;
  let requests = 0;
  cdp.on('Network.loadingFinished', (e) => {
    bytes += e.encodedDataLength;
    requests += 1;
  });
  await page.goto(site.url + route, { waitUntil: 'load' });
  // the island has arrived once an explorer no longer shows the fallback's "loading" state
  const arrived = page.locator('[data-explorer]:not([data-sandbox="loading"])').first();
  if (route !== '/') await arrived.waitFor({ timeout: 60_000 });
  await page.waitForTimeout(1000); // late shifts and long tasks settle
  const metrics = await readMetrics(page);
  await context.close();
  return { ...metrics, bytes, requests };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number | null) => (x === null ? '—' : `${Math.round(x)} ms`);

try {
  const rows: string[][] = [];
  for (const route of COURSE_ROUTES) {
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await load(route));
    const pick = (f: (r: Run) => number | null) => {
      const xs = runs.map(f).filter((x): x is number => x !== null);
      return xs.length ? median(xs) : null;
    };
    rows.push([
      route,
      ms(pick((r) => r.fcp)),
      ms(pick((r) => r.lcp)),
      pick((r) => r.cls)!.toFixed(3),
      `${pick((r) => r.longTasks)} / ${ms(pick((r) => r.tbt))}`,
      `${(pick((r) => r.bytes)! / 1024).toFixed(1)} KB in ${pick((r) => r.requests)}`,
    ]);
  }
  const head = ['page', 'FCP', 'LCP', 'CLS', 'long tasks / TBT', 'transferred'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(`412 px, DPR 1.75, slow 4G, CPU ÷4, median of ${RUNS} loads per page`);
  console.log(line(head));
  for (const r of rows) console.log(line(r));
} finally {
  await browser.close();
  await site.close();
}
