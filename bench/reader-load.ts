// Readers for the explorer's load benches: `clients` kept-alive connections POSTing one experiment's
// inputs one after the other until `requests` are answered, as explorer-load.ts loads the site and
// ratio-floor.ts loads the floor, so both are loaded alike. Answers latency p50/p99, throughput and the
// refusals seen.

import { KeepAliveClient } from './keep-alive-client.ts';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function load(
  url: string,
  name: string,
  body: (i: number) => unknown,
  clients: number,
  requests: number,
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
          const code = `${answer.status} ${(answer.body as { code?: string }).code}`;
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
 * Requests sent to warm a process (EXPLORER_BENCH_WARM), twice per experiment (measureWarm): V8 compiles
 * a function by tiers as it runs hot and sizes its young generation by what survives, and a process's
 * first few thousand runs cost up to twice the later ones, which a cell measured cold counts as the
 * experiment's. The site has more code to warm than the floor: in cells of 2,000 runs from its start, its
 * slot cost 1.17, 0.89, 0.78, 0.69, then 0.69–0.75 ms a run, and keys 0.74, 0.58, 0.43, then 0.37–0.47;
 * 2 × 3,000 warm runs measure both sides steady.
 */
export const WARM_REQUESTS = Number(process.env.EXPLORER_BENCH_WARM ?? 3000);

/**
 * Warms the process at `url` on every experiment of `workloads` (the paths they share), then each one
 * again just before `measure` measures its cells, so no cell pays for compiling what the next would find ready.
 */
export async function measureWarm(
  url: string,
  workloads: Array<[string, (i: number) => unknown]>,
  measure: (name: string, body: (i: number) => unknown) => Promise<void>,
): Promise<void> {
  for (const [name, body] of workloads) await load(url, name, body, 10, WARM_REQUESTS);
  for (const [name, body] of workloads) {
    await load(url, name, body, 10, WARM_REQUESTS);
    await measure(name, body);
  }
}
