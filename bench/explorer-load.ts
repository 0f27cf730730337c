// Load on the explorer's JSON API: starts the built site with its own supervised sandbox, then runs
// each experiment from 1, 10 and 50 concurrent clients and prints latency p50/p99 and throughput, for
// one site process and for WORKERS=2 (two behind one port).
// The rate limit is lifted for the run (EXPLORER_BURST/EXPLORER_RATE). Beside them, the CPU each run cost
// the site's Node processes and the sandbox's valkey-servers (from /proc, each thread's run time in ns),
// and their ratio: on a machine shared with other work the wall-clock figures move with the load, the
// CPU per run far less. Then, per experiment, the site's and Valkey's CPU per run at 10 and 50 readers,
// the ratio at each, and how the site's cost per run changed from 10 to 50 (issue 26's goals: a ratio of
// at most 2, a change within ±10%), and last, beside one site process's, the floor's: the same runs
// replayed by a bare node:http + iovalkey server (ratio-floor.ts; EXPLORER_BENCH_FLOOR=0 leaves it out),
// with the site's CPU per run over the floor's per experiment (issue 38's goal: at most 1.3).
// Each process is warmed first (reader-load.ts). Every line carries the load average. Prints figures;
// asserts nothing.
// Run: npm run bench:explorer   (EXPLORER_BENCH_REQUESTS sets the requests per experiment and level)

import { startSiteWithOwnSandbox } from '../scripts/site.ts';
import { sandboxUp } from '../tests/support/sandbox-up.ts';
import { WORKLOADS } from './explorer-workloads.ts';
import { load, measureWarm } from './reader-load.ts';
import { measureFloor } from './ratio-floor.ts';
import { cpuBelow, loadAverage, ratio, type Cost } from './run-cost.ts';

const REQUESTS = Math.min(Number(process.env.EXPLORER_BENCH_REQUESTS ?? 1000), 5000);
const LEVELS = (process.env.EXPLORER_BENCH_CLIENTS ?? '1,10,50').split(',').map(Number);
/** Which experiments and worker counts to run (all of them unless narrowed, e.g. for a profile). */
const ONLY = process.env.EXPLORER_BENCH_ONLY?.split(',');
const WORKER_COUNTS = (process.env.EXPLORER_BENCH_WORKERS ?? '1,2').split(',').map(Number);
const CHOSEN = Object.entries(WORKLOADS).filter(([name]) => !ONLY || ONLY.includes(name));

/** Per experiment: site and Valkey CPU per run at 10 and 50 readers, their ratio, the change 10 → 50. */
function printCosts(workers: number, costs: Map<string, Map<number, Cost>>) {
  const [low, high] = [10, 50];
  console.log(
    `\nsite ÷ Valkey CPU per run, WORKERS=${workers} (goal: ratio ≤ 2.00 at both, site ms/run within ±10% from ${low} to ${high} readers)\n`,
  );
  console.log(
    `experiment      site@${low}  valkey@${low}  ratio@${low}   site@${high}  valkey@${high}  ratio@${high}   site ${low}→${high}   load average (at ${low}; at ${high})`,
  );
  for (const [name, byLevel] of costs) {
    const a = byLevel.get(low);
    const b = byLevel.get(high);
    if (!a || !b) continue;
    const change = ((b.site - a.site) / a.site) * 100;
    const cells = [
      a.site.toFixed(3).padStart(8),
      a.valkey.toFixed(3).padStart(10),
      ratio(a).toFixed(2).padStart(9),
      b.site.toFixed(3).padStart(9),
      b.valkey.toFixed(3).padStart(10),
      ratio(b).toFixed(2).padStart(9),
      `${change >= 0 ? '+' : ''}${change.toFixed(1)}%`.padStart(12),
    ];
    console.log(`${name.padEnd(15)} ${cells.join(' ')}   ${a.load}; ${b.load}`);
  }
}

/** Per experiment at 10 and 50 readers: the site's CPU per run beside the floor's, and site ÷ floor. */
function printBesideFloor(site: Map<string, Map<number, Cost>>, floor: Map<string, Map<number, Cost>>) {
  console.log(
    `\nsite ÷ floor CPU per run, WORKERS=1 (issue 38's goal: ≤ 1.30 for keys, slot, layout, route, two-executors and console); beside each, site ÷ Valkey\n`,
  );
  console.log(
    'experiment      site@10  floor@10  site÷floor@10   site@50  floor@50  site÷floor@50   site÷valkey (site; floor) @10, @50   load average (floor at 10; at 50)',
  );
  const ms = (cost: Cost) => cost.site.toFixed(3).padStart(8);
  const over = (a: Cost, b: Cost) => (a.site / b.site).toFixed(2).padStart(14);
  const ratios = (a: Cost, b: Cost) => `${ratio(a).toFixed(2)}; ${ratio(b).toFixed(2)}`;
  for (const [name, ours] of site) {
    const theirs = floor.get(name);
    const [a, b, c, d] = [ours.get(10), ours.get(50), theirs?.get(10), theirs?.get(50)];
    if (!a || !b || !c || !d) continue;
    console.log(
      `${name.padEnd(15)}${ms(a)}  ${ms(c)}${over(a, c)}  ${ms(b)}  ${ms(d)}${over(b, d)}   ${ratios(a, c).padEnd(12)} ${ratios(b, d).padEnd(12)}           ${c.load}; ${d.load}`,
    );
  }
}

/** The site's costs with one process, for the floor's table. */
let oneProcess: Map<string, Map<number, Cost>> | null = null;

// One process, then WORKERS=2 (two processes behind one port, leasing keyspaces through Valkey).
for (const workers of WORKER_COUNTS) {
  const site = await startSiteWithOwnSandbox({
    EXPLORER_BURST: '1000000',
    EXPLORER_RATE: '1000000',
    WORKERS: String(workers),
  });
  try {
    await sandboxUp(site.url, 20_000);
    console.log(
      `\nexplorer load, WORKERS=${workers}: ${REQUESTS} requests per experiment and concurrency level, own sandbox\n`,
    );
    console.log(
      'experiment      clients   p50 ms   p99 ms    req/s  node ms/run  valkey ms/run  site÷valkey  bench ms/run   load average     refusals',
    );
    const costs = new Map<string, Map<number, Cost>>();
    await measureWarm(site.url, CHOSEN, async (name, body) => {
      for (const clients of LEVELS) {
        const before = cpuBelow(site.pid);
        const benchBefore = process.cpuUsage();
        const r = await load(site.url, name, body, clients, REQUESTS);
        const benchCpu = process.cpuUsage(benchBefore);
        const after = cpuBelow(site.pid);
        const benchPerRun = ((benchCpu.user + benchCpu.system) / 1000 / REQUESTS).toFixed(2);
        const average = loadAverage();
        const cost =
          before && after
            ? {
                site: (after.node - before.node) / REQUESTS,
                valkey: (after.valkey - before.valkey) / REQUESTS,
                load: average,
              }
            : null;
        if (cost) costs.set(name, (costs.get(name) ?? new Map()).set(clients, cost));
        const cells = [
          r.p50.toFixed(1).padStart(8),
          r.p99.toFixed(1).padStart(8),
          r.perSecond.toFixed(0).padStart(8),
          (cost?.site.toFixed(3) ?? '-').padStart(12),
          (cost?.valkey.toFixed(3) ?? '-').padStart(14),
          (cost ? ratio(cost).toFixed(2) : '-').padStart(12),
          benchPerRun.padStart(13),
        ];
        console.log(
          `${name.padEnd(15)} ${String(clients).padStart(7)} ${cells.join(' ')}   ${average}   ${r.failures}`,
        );
      }
    });
    printCosts(workers, costs);
    if (workers === 1) oneProcess = costs;
  } finally {
    await site.close();
  }
}

// The floor beside one site process: what a bare node:http + iovalkey server pays for the same runs.
if (oneProcess && LEVELS.includes(10) && LEVELS.includes(50) && process.env.EXPLORER_BENCH_FLOOR !== '0') {
  console.log(
    '\nthe floor: the same runs replayed by a bare node:http + iovalkey server (bench/ratio-floor.ts)\n',
  );
  printBesideFloor(
    oneProcess,
    await measureFloor(
      CHOSEN.map(([name]) => name),
      [10, 50],
      REQUESTS,
    ),
  );
}
