// Lighthouse (mobile, its defaults: a simulated slow 4G and a 4× slower CPU) on every course page and
// the not-found page, all four categories, RUNS times each, as figures (never a test: Lighthouse is not a
// dependency of the project). Prints each run's scores with the load average beside them, and every audit
// that cost a category points. Give the CLI's path in LIGHTHOUSE, e.g. after
// `npm install --prefix /tmp/lh lighthouse`:
//   LIGHTHOUSE=/tmp/lh/node_modules/.bin/lighthouse node bench/lighthouse.ts [base-url]
// Without a base URL it starts the built site itself (scripts/site.ts). RUNS (default 3) and ROUTES (a
// comma-separated subset) narrow a run. Lighthouse refuses to audit a document answered with 404, so the
// not-found page is audited where the built site also serves it with 200, at /404.html: the same bytes.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { COURSE_ROUTES, startSite, type Site } from '../scripts/site.ts';

const LIGHTHOUSE = process.env.LIGHTHOUSE;
if (!LIGHTHOUSE) {
  console.error(
    'LIGHTHOUSE: the path of the lighthouse CLI is needed (npm install --prefix /tmp/lh lighthouse)',
  );
  process.exit(2);
}
const RUNS = Number(process.env.RUNS ?? 3);
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const NOT_FOUND = '/404.html';
const ROUTES = process.env.ROUTES?.split(',') ?? [...COURSE_ROUTES, NOT_FOUND];

let site: Site | undefined;
const base = process.argv[2] ?? (site = await startSite()).url;

interface Report {
  categories: Record<string, { score: number | null; auditRefs: Array<{ id: string; weight: number }> }>;
  audits: Record<
    string,
    { score: number | null; title: string; displayValue?: string; numericValue?: number }
  >;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

try {
  for (const route of ROUTES) {
    for (let run = 1; run <= RUNS; run++) {
      const before = load();
      const lighthouse = spawnSync(
        LIGHTHOUSE,
        [
          base + route,
          `--only-categories=${CATEGORIES.join(',')}`,
          '--output=json',
          '--quiet',
          '--chrome-flags=--headless=new --no-sandbox',
        ],
        {
          encoding: 'utf8',
          env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH ?? '/usr/bin/chromium' },
          maxBuffer: 64 << 20,
        },
      );
      if (lighthouse.status !== 0) {
        console.log(`${route} run ${run}: lighthouse failed: ${lighthouse.stderr.trim().split('\n').at(-1)}`);
        continue;
      }
      const report = JSON.parse(lighthouse.stdout) as Report;
      const scores = CATEGORIES.map((c) => {
        const score = report.categories[c]?.score;
        return `${c} ${score === null || score === undefined ? '–' : Math.round(score * 100)}`;
      });
      // what cost points: a weighted audit under 1, with its figure (a metric's value, say)
      const costs = CATEGORIES.flatMap((c) =>
        (report.categories[c]?.auditRefs ?? [])
          .filter(({ id, weight }) => {
            const score = report.audits[id]?.score;
            return weight > 0 && score !== null && score !== undefined && score < 1;
          })
          .map(({ id }) => {
            const audit = report.audits[id]!;
            return `${c}: ${id} ${audit.score?.toFixed(2)}${audit.displayValue ? ` (${audit.displayValue})` : ''}`;
          }),
      );
      const metrics = [
        'first-contentful-paint',
        'largest-contentful-paint',
        'total-blocking-time',
        'dom-size',
      ]
        .map((id) => `${id} ${report.audits[id]?.displayValue ?? '–'}`)
        .join(', ');
      console.log(
        `${route} run ${run}: ${scores.join(', ')} (load average ${before} → ${load()}); ${metrics}`,
      );
      for (const cost of costs) console.log(`  ${cost}`);
    }
  }
} finally {
  await site?.close();
}
