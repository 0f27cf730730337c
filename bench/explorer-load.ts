// Load on the explorer's JSON API: starts the built site with its own supervised sandbox, then runs
// each experiment from 1, 10 and 50 concurrent clients and prints latency p50/p99 and throughput.
// The rate limit is lifted for the run (EXPLORER_BURST/EXPLORER_RATE). Prints figures; asserts nothing.
// Run: npm run bench:explorer   (EXPLORER_BENCH_REQUESTS sets the requests per experiment and level)

import { startSite } from '../scripts/site.ts';

const REQUESTS = Math.min(Number(process.env.EXPLORER_BENCH_REQUESTS ?? 300), 5000);
const LEVELS = [1, 10, 50];

const WORKLOADS: Array<{ name: string; body: (i: number) => unknown }> = [
  { name: 'keys', body: (i) => ({ queue: `bench-${i % 97}` }) },
  { name: 'slot', body: (i) => ({ queue: `bench-${i % 97}`, other: 'fills' }) },
  {
    name: 'layout',
    body: (i) =>
      i % 2
        ? { verb: 'enqueue', queue: 'orders' }
        : {
            verb: 'enqueue',
            queue: 'orders',
            keys: ['emq:{orders}:job:JOB0Nb1VTbfnu4', 'emq:{orderz}:pending'],
          },
  },
  // Queue names spread over the three nodes' slots; runs on one slot take turns.
  { name: 'route', body: (i) => ({ queue: `bench-${i % 97}` }) },
  { name: 'reserve', body: () => ({}) },
  { name: 'two-executors', body: () => ({ steps: ['enqueue', 'claim', 'complete'] }) },
];

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
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < requests; i = next++) {
        const t0 = performance.now();
        const response = await fetch(`${url}/api/experiments/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body(i)),
        });
        const payload = (await response.json()) as { error?: { code: string } };
        latencies.push(performance.now() - t0);
        if (!response.ok) {
          const code = `${response.status} ${payload.error?.code}`;
          failures.set(code, (failures.get(code) ?? 0) + 1);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    perSecond: requests / seconds,
    failures: [...failures].map(([code, n]) => `${n}× ${code}`).join(', ') || 'none',
  };
}

const site = await startSite({
  VALKEY_URL: '',
  VALKEY_CLUSTER_URL: '',
  EXPLORER_BURST: '1000000',
  EXPLORER_RATE: '1000000',
});
try {
  for (let i = 0; ; i++) {
    const status = (await (await fetch(`${site.url}/api/sandbox`)).json()) as { sandbox: string };
    if (status.sandbox === 'up') break;
    if (i > 200) throw new Error('the sandbox did not come up');
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`explorer load: ${REQUESTS} requests per experiment and concurrency level, own sandbox\n`);
  console.log('experiment      clients   p50 ms   p99 ms    req/s   refusals');
  for (const { name, body } of WORKLOADS) {
    await load(site.url, name, body, 5, 20); // warm up: scripts loaded, connections open
    for (const clients of LEVELS) {
      const r = await load(site.url, name, body, clients);
      console.log(
        `${name.padEnd(15)} ${String(clients).padStart(7)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${r.perSecond.toFixed(0).padStart(8)}   ${r.failures}`,
      );
    }
  }
} finally {
  await site.close();
}
