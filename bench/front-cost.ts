// What our HTTP front costs a request before any run, beside a bare node:http server: both answer the
// same POST (an experiment's body with a field it does not take) with the same 400 bytes, so neither
// touches Valkey; the site's part is its front (limits, headers, access log, metrics, request context,
// path and body checks) and the API's refusal. Issue 38's site ÷ floor per run (ratio-floor.ts) counts
// this once per run: the difference printed here is how much of that ratio the front alone is.
// Prints figures; asserts nothing.
// Run: node bench/front-cost.ts [--requests 20000]

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { startSiteWithOwnSandbox } from '../scripts/site.ts';
import { sandboxUp } from '../tests/support/sandbox-up.ts';
import { flagValues, positiveFlag } from './flags.ts';
import { load } from './reader-load.ts';
import { cpuBelow, loadAverage } from './run-cost.ts';

const flags = flagValues({ requests: '20000' });
const REQUESTS = positiveFlag(flags, 'requests');
const BODY = () => ({ unknown: 1 });

/** Node CPU µs per request of the process tree at `pid`, for REQUESTS refused POSTs from 10 readers. */
async function cost(url: string, pid: number): Promise<number> {
  await load(url, 'keys', BODY, 10, Math.min(REQUESTS, 5000)); // warm
  const before = cpuBelow(pid)!.node;
  const answered = await load(url, 'keys', BODY, 10, REQUESTS);
  if (answered.failures !== `${REQUESTS}× 400 BAD_INPUT`)
    throw new Error(`expected only 400s, got ${answered.failures}`);
  return ((cpuBelow(pid)!.node - before) * 1000) / REQUESTS;
}

const site = await startSiteWithOwnSandbox({
  EXPLORER_BURST: '1000000',
  EXPLORER_RATE: '1000000',
  WORKERS: '1',
});
let siteUs: number;
let answer: string;
try {
  await sandboxUp(site.url, 20_000);
  const refused = await fetch(`${site.url}/api/experiments/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BODY()),
  });
  answer = await refused.text();
  siteUs = await cost(site.url, site.pid);
} finally {
  await site.close();
}

const bare = spawn(process.execPath, [join(import.meta.dirname, 'bare-front.ts')], {
  env: { ...process.env, BARE_ANSWER: answer },
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const [line] = (await once(bare.stdout!, 'data')) as [Buffer];
  const bareUs = await cost(`http://127.0.0.1:${Number(String(line).trim())}`, bare.pid!);
  console.log(
    `\nCPU per refused POST (${answer.length} bytes answered), ${REQUESTS} requests from 10 readers\n`,
  );
  console.log(`our front   ${siteUs.toFixed(0).padStart(5)} µs`);
  console.log(`bare front  ${bareUs.toFixed(0).padStart(5)} µs`);
  console.log(
    `ratio       ${(siteUs / bareUs).toFixed(2).padStart(5)}    difference ${(siteUs - bareUs).toFixed(0)} µs   load ${loadAverage()}`,
  );
} finally {
  bare.kill();
}
