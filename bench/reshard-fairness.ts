// Is the reshards' turn fair (issue 25.2)? The built site on a sandbox of its own; a few addresses each
// keep many reshards in flight (polite: a refusal's `retry-after` is waited out), while an honest reader
// from an address of its own asks for one reshard every 2 s (the next once the last is answered). Prints, for each mode (keys, atomic), each
// flood (3 addresses × 10 in flight, 5 × 20) and one site process or two (WORKERS=2): the honest reader's
// success rate, p50/p95 latency and how many were answered 200 within 3 s, and what the flood was
// answered. Goal: ≥ 95% success within 3 s, p50 ≤ 1.5 s. Not part of the suite; asserts nothing.
//
// node bench/reshard-fairness.ts [--seconds 30] [--workers 1,2] [--modes keys,atomic] [--floods 3x10,5x20]
//
// Several addresses on one machine: Linux routes all of 127/8 to loopback, so each client binds its own
// (tests/support/from-address.ts), and the site reads each as a reader of its own, as it would behind
// TRUST_PROXY with x-forwarded-for.

import { readFileSync } from 'node:fs';
import { flagValues, positiveFlag } from './flags.ts';
import { startSite } from '../scripts/site.ts';
import { startSandbox } from '../server/sandbox/sandbox.ts';
import { requestFrom } from '../tests/support/from-address.ts';
import { sandboxUp } from '../tests/support/sandbox-up.ts';

const flags = flagValues({ seconds: '30', workers: '1,2', modes: 'keys,atomic', floods: '3x10,5x20' });
const SECONDS = positiveFlag(flags, 'seconds');
const WORKERS = flags.workers.split(',').map(Number);
const MODES = flags.modes.split(',');
const FLOODS = flags.floods.split(',').map((f) => {
  const [addresses, inFlight] = f.split('x').map(Number);
  if (!(addresses! > 0 && inFlight! > 0)) throw new Error(`a flood is <addresses>x<in flight>, not ${f}`);
  return { addresses: addresses!, inFlight: inFlight! };
});
const HONEST_EVERY_MS = 2000;
const HONEST = '127.0.0.250';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const pct = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

interface Answered {
  status: number;
  code: string;
  ms: number;
}

async function reshard(url: string, from: string, queue: string, mode: string): Promise<Answered> {
  const started = performance.now();
  try {
    const answer = await requestFrom(from, `${url}/api/experiments/reshard`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ queue, mode }),
    });
    const ms = performance.now() - started;
    let code = '';
    if (answer.status !== 200) code = JSON.parse(answer.body.toString()).code ?? '';
    const retry = Number(answer.headers['retry-after'] ?? 0);
    return { status: answer.status, code, ms, ...(retry > 0 ? { retry } : {}) };
  } catch (error) {
    return { status: 0, code: (error as Error).message, ms: performance.now() - started };
  }
}

async function scenario(url: string, mode: string, addresses: number, inFlight: number) {
  const endAt = Date.now() + SECONDS * 1000;
  const flood = new Map<string, number>();
  const count = (a: Answered) => {
    const key = `${a.status}${a.code ? ` ${a.code}` : ''}`;
    flood.set(key, (flood.get(key) ?? 0) + 1);
  };
  const flooder = async (address: string, lane: number) => {
    while (Date.now() < endAt) {
      const answer = await reshard(url, address, `flood${lane % 4}`, mode);
      count(answer);
      const retry = (answer as { retry?: number }).retry;
      if (retry) await sleep(retry * 1000);
    }
  };
  const floods = Array.from({ length: addresses }, (_, a) =>
    Array.from({ length: inFlight }, (_, lane) => flooder(`127.0.0.${10 + a}`, lane)),
  ).flat();
  // The flood takes its places first; then the honest reader asks every 2 s until the end.
  await sleep(2000);
  // Honest: one reshard at a time, as a reader clicking again 2 s after the last click (or, when the
  // answer took longer, once it came).
  const honest: Answered[] = [];
  while (Date.now() < endAt - 3000) {
    const next = Date.now() + HONEST_EVERY_MS;
    honest.push(await reshard(url, HONEST, 'honest', mode));
    await sleep(next - Date.now());
  }
  await Promise.all(floods);
  const ok = honest.filter((a) => a.status === 200);
  const within = ok.filter((a) => a.ms <= 3000);
  const sorted = honest.map((a) => a.ms).sort((a, b) => a - b);
  const failures = honest.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.code}`);
  const floodSaid = [...flood]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n}× ${k}`)
    .join(', ');
  return {
    line:
      `${mode.padEnd(6)} ${`${addresses} × ${inFlight}`.padEnd(7)} honest: ${ok.length}/${honest.length} ok ` +
      `(${((100 * ok.length) / Math.max(1, honest.length)).toFixed(0)}%), ${within.length} within 3 s; ` +
      `p50 ${pct(sorted, 50).toFixed(0)} ms, p95 ${pct(sorted, 95).toFixed(0)} ms` +
      (failures.length ? `; refused: ${failures.join(', ')}` : ''),
    flood: `         flood answered: ${floodSaid}`,
  };
}

console.log(
  `reshard fairness: ${SECONDS} s per case, load average ${load()} (2 cores, shared with other work)`,
);
for (const workers of WORKERS) {
  const sandbox = await startSandbox({ databases: 25 });
  const site = await startSite({
    VALKEY_URL: sandbox.standalone.url,
    VALKEY_CLUSTER_URL: sandbox.cluster!.url,
    WORKERS: String(workers),
  });
  try {
    await sandboxUp(site.url, 30_000);
    console.log(`\nWORKERS=${workers}`);
    for (const mode of MODES) {
      // The atomic mode's cluster starts with the site; wait until it answers a reshard.
      if (mode === 'atomic') {
        const deadline = Date.now() + 120_000;
        while ((await reshard(site.url, '127.0.0.251', 'warm', mode)).status !== 200) {
          if (Date.now() > deadline)
            throw new Error('the Valkey 9.1 cluster did not serve a reshard in 120 s');
          await sleep(2000);
        }
      }
      for (const { addresses, inFlight } of FLOODS) {
        const { line, flood } = await scenario(site.url, mode, addresses, inFlight);
        console.log(line);
        console.log(flood);
        await sleep(2000); // the flood's last runs end before the next case
      }
    }
  } finally {
    await site.close();
    await sandbox.stop();
  }
}
console.log(`\nload average at end ${load()}`);
process.exit(0);
