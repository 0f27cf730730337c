// The four figures of the site's weight and cost, in one run, one after the other: each course page's
// bytes beside a Starlight build of the same text (page-bytes.ts), the explorer's site ÷ Valkey CPU per
// run at 10 and 50 readers beside the floor's, a bare node:http + iovalkey server replaying the same runs
// (explorer-load.ts, ratio-floor.ts), the reshard click in both modes (reshard-sizes.ts), and
// each transition's native ÷ floor, a replica attached (transitions.ts). Each script prints its own
// tables; this one runs them in turn on an otherwise idle machine and heads each with the load average,
// since all of them share the same two cores. Prints figures; asserts nothing.
// Run: npm run bench:all   (about 15 minutes; BENCH_ALL_ONLY=pages,explorer,reshard,native narrows it)
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';

const HERE = import.meta.dirname;

const PARTS = {
  pages: { script: 'page-bytes.ts', args: [], env: {} },
  explorer: {
    script: 'explorer-load.ts',
    args: [],
    env: { EXPLORER_BENCH_CLIENTS: '10,50', EXPLORER_BENCH_WORKERS: '1' },
  },
  reshard: { script: 'reshard-sizes.ts', args: ['3'], env: {} },
  native: { script: 'transitions.ts', args: [], env: {} },
} as const;

type Part = keyof typeof PARTS;
const only = process.env.BENCH_ALL_ONLY?.split(',') ?? Object.keys(PARTS);
const unknown = only.filter((name) => !(name in PARTS));
if (unknown.length > 0) {
  console.error(`BENCH_ALL_ONLY: unknown ${unknown.join(', ')}; allowed: ${Object.keys(PARTS).join(', ')}`);
  process.exit(2);
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

let failed = 0;
for (const name of only as Part[]) {
  const { script, args, env } = PARTS[name];
  console.log(`\n## ${name}: bench/${script} ${args.join(' ')} (load average ${load()})\n`);
  const run = spawnSync(process.execPath, [join(HERE, script), ...args], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (run.status !== 0) {
    failed++;
    console.log(`bench/${script} ended with ${run.status ?? run.signal}`);
  }
}
console.log(`\nload average at the end: ${load()}`);
process.exit(failed > 0 ? 1 : 0);
