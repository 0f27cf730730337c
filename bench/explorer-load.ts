// Load on the explorer's JSON API: starts the built site with its own supervised sandbox, then runs
// each experiment from 1, 10 and 50 concurrent clients and prints latency p50/p99 and throughput, for
// one site process and for WORKERS=2 (two behind one port).
// The rate limit is lifted for the run (EXPLORER_BURST/EXPLORER_RATE). Beside them, the CPU each run cost
// the site's Node processes and the sandbox's valkey-servers (from /proc, each thread's run time in ns),
// and their ratio: on a machine shared with other work the wall-clock figures move with the load, the
// CPU per run far less. Then, per experiment, the site's and Valkey's CPU per run at 10 and 50 readers,
// the ratio at each, and how the site's cost per run changed from 10 to 50 (issue 26's goals: a ratio of
// at most 2, a change within ±10%). Every line carries the load average. Prints figures; asserts nothing.
// Run: npm run bench:explorer   (EXPLORER_BENCH_REQUESTS sets the requests per experiment and level)

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startSiteWithOwnSandbox } from '../scripts/site.ts';
import { processTreeOf } from '../tests/support/processes.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { sandboxUp } from '../tests/support/sandbox-up.ts';
import { WORKLOADS } from './explorer-workloads.ts';

const REQUESTS = Math.min(Number(process.env.EXPLORER_BENCH_REQUESTS ?? 1000), 5000);
const LEVELS = (process.env.EXPLORER_BENCH_CLIENTS ?? '1,10,50').split(',').map(Number);
/** Which experiments and worker counts to run (all of them unless narrowed, e.g. for a profile). */
const ONLY = process.env.EXPLORER_BENCH_ONLY?.split(',');
const WORKER_COUNTS = (process.env.EXPLORER_BENCH_WORKERS ?? '1,2').split(',').map(Number);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function load(
  url: string,
  name: string,
  body: (i: number) => unknown,
  clients: number,
  requests = REQUESTS,
) {
  let next = 0;
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const path = `/api/experiments/${name}`;
  const readers = Array.from({ length: clients }, () => new KeepAliveClient(url));
  const started = performance.now();
  await Promise.all(
    readers.map(async (reader) => {
      for (let i = next++; i < requests; i = next++) {
        const t0 = performance.now();
        const answer = await reader.post(path, JSON.stringify(body(i)));
        latencies.push(performance.now() - t0);
        if (answer.status !== 200) {
          const code = `${answer.status} ${(answer.body as { error?: { code: string } }).error?.code}`;
          failures.set(code, (failures.get(code) ?? 0) + 1);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  for (const reader of readers) reader.close();
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    perSecond: requests / seconds,
    failures: [...failures].map(([code, n]) => `${n}× ${code}`).join(', ') || 'none',
  };
}

/**
 * CPU ms so far of one process: the run time of each of its threads (/proc/<pid>/task/<tid>/schedstat, in
 * ns), as the ticks of /proc/<pid>/stat are 10 ms, a tenth of a cell's Valkey CPU at 300 runs. The
 * threads of Node and valkey-server live as long as their process, so none is lost between readings.
 */
function threadsCpuMs(pid: number): number {
  let ns = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    // ended while read
  }
  return ns / 1e6;
}

/** CPU ms so far of `root` and every process under it, split into Node and valkey-server. */
function cpuBelow(root: number): { node: number; valkey: number } | null {
  if (!existsSync('/proc')) return null; // not Linux
  const total = { node: 0, valkey: 0 };
  for (const p of processTreeOf(root))
    total[p.comm.startsWith('valkey') ? 'valkey' : 'node'] += threadsCpuMs(p.pid);
  return total;
}

/** The machine's load average over 1, 5 and 15 minutes, as uptime prints it. */
function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
}

/** The site's and Valkey's CPU per run of one cell. */
interface Cost {
  site: number;
  valkey: number;
  load: string;
}

const ratio = (cost: Cost) => (cost.valkey > 0 ? cost.site / cost.valkey : NaN);

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
    for (const [name, body] of Object.entries(WORKLOADS).filter(([name]) => !ONLY || ONLY.includes(name))) {
      await load(site.url, name, body, 5, 20); // warm up: scripts loaded, connections open
      for (const clients of LEVELS) {
        const before = cpuBelow(site.pid);
        const benchBefore = process.cpuUsage();
        const r = await load(site.url, name, body, clients);
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
    }
    printCosts(workers, costs);
  } finally {
    await site.close();
  }
}
