// Lighthouse's best-practices score of every course page, with the site's security headers and CSP as
// served, as figures (never a test: Lighthouse is not a dependency of the project). Give the CLI's path
// in LIGHTHOUSE, e.g. after `npm install --prefix /tmp/lh lighthouse`:
//   LIGHTHOUSE=/tmp/lh/node_modules/.bin/lighthouse node bench/best-practices.ts [url]
// Prints each page's score and every audit under 1 with its title.

import { spawnSync } from 'node:child_process';
import { COURSE_ROUTES, startSite, type Site } from '../scripts/site.ts';

const LIGHTHOUSE = process.env.LIGHTHOUSE;
if (!LIGHTHOUSE) {
  console.error(
    'LIGHTHOUSE: the path of the lighthouse CLI is needed (npm install --prefix /tmp/lh lighthouse)',
  );
  process.exit(2);
}
let site: Site | undefined;
const base = process.argv[2] ?? (site = await startSite()).url;

interface Report {
  categories: { 'best-practices': { score: number; auditRefs: Array<{ id: string; weight: number }> } };
  audits: Record<string, { score: number | null; title: string; scoreDisplayMode: string }>;
}

// Lighthouse will not audit a 404, so the not-found page is left to tests/site/csp.test.ts.
for (const route of COURSE_ROUTES) {
  const run = spawnSync(
    LIGHTHOUSE,
    [
      base + route,
      '--only-categories=best-practices',
      '--output=json',
      '--quiet',
      '--chrome-flags=--headless=new --no-sandbox --disable-gpu',
    ],
    {
      encoding: 'utf8',
      env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH ?? '/usr/bin/chromium' },
      maxBuffer: 64 << 20,
    },
  );
  if (run.status !== 0) {
    console.log(`${route}: lighthouse failed: ${run.stderr.trim().split('\n').at(-1)}`);
    continue;
  }
  const report = JSON.parse(run.stdout) as Report;
  const category = report.categories['best-practices'];
  const failing = category.auditRefs
    .map(({ id }) => ({ id, audit: report.audits[id]! }))
    .filter(
      ({ audit }) => audit.scoreDisplayMode !== 'notApplicable' && audit.score !== null && audit.score < 1,
    )
    .map(({ id, audit }) => `${id} (${audit.title})`);
  console.log(
    `${route}: best practices ${Math.round(category.score * 100)}${failing.length ? `; under 1: ${failing.join(', ')}` : ''}`,
  );
}
await site?.close();
