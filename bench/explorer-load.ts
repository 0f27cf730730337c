// Load on the explorer's JSON API: starts the built site with its own supervised sandbox, then runs
// each experiment from 1, 10 and 50 concurrent clients and prints latency p50/p99 and throughput, for
// one site process and for WORKERS=2 (two behind one port).
// The rate limit is lifted for the run (EXPLORER_BURST/EXPLORER_RATE). Beside them, the CPU each run cost
// the site's Node processes and the sandbox's valkey-servers (from /proc): on a machine shared with other
// work the wall-clock figures move with the load, the CPU per run far less. Prints figures; asserts nothing.
// Run: npm run bench:explorer   (EXPLORER_BENCH_REQUESTS sets the requests per experiment and level)

import { existsSync } from 'node:fs';
import { startSiteWithOwnSandbox } from '../scripts/site.ts';
import { processTreeOf } from '../tests/support/processes.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { sandboxUp } from '../tests/support/sandbox-up.ts';
import { WORKLOADS } from './explorer-workloads.ts';

const REQUESTS = Math.min(Number(process.env.EXPLORER_BENCH_REQUESTS ?? 300), 5000);
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

/** CPU ms (user + system) so far of `root` and every process under it, split into Node and valkey-server. */
function cpuBelow(root: number): { node: number; valkey: number } | null {
  if (!existsSync('/proc')) return null; // not Linux
  const total = { node: 0, valkey: 0 };
  for (const p of processTreeOf(root)) total[p.comm.startsWith('valkey') ? 'valkey' : 'node'] += p.cpuMs;
  return total;
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
      'experiment      clients   p50 ms   p99 ms    req/s  node ms/run  valkey ms/run  bench ms/run   refusals',
    );
    for (const [name, body] of Object.entries(WORKLOADS).filter(([name]) => !ONLY || ONLY.includes(name))) {
      await load(site.url, name, body, 5, 20); // warm up: scripts loaded, connections open
      for (const clients of LEVELS) {
        const before = cpuBelow(site.pid);
        const benchBefore = process.cpuUsage();
        const r = await load(site.url, name, body, clients);
        const benchCpu = process.cpuUsage(benchBefore);
        const after = cpuBelow(site.pid);
        const benchPerRun = ((benchCpu.user + benchCpu.system) / 1000 / REQUESTS).toFixed(2);
        const perRun = (kind: 'node' | 'valkey') =>
          before && after ? ((after[kind] - before[kind]) / REQUESTS).toFixed(2) : '-';
        console.log(
          `${name.padEnd(15)} ${String(clients).padStart(7)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${r.perSecond.toFixed(0).padStart(8)} ${perRun('node').padStart(12)} ${perRun('valkey').padStart(14)} ${benchPerRun.padStart(12)}   ${r.failures}`,
        );
      }
    }
  } finally {
    await site.close();
  }
}
