// The first run of each experiment on a site that has just said it is up: starts the built site with
// its own supervised sandbox, waits for GET /api/sandbox to say `up`, then POSTs each experiment's
// example once, one after another, and prints the milliseconds each first run took (and a second run,
// for comparison). What a reader who opens the page right after a start waits for. Several starts are
// measured (FIRST_RUN_STARTS, default 3) since one start on a shared machine says little. Prints
// figures; asserts nothing.
// Run: node bench/first-run.ts   (FIRST_RUN_WORKERS=2 for two site processes behind one port)

import { EXPERIMENT_NAMES, EXPERIMENT_TABLE } from '../server/contract/experiment-table.ts';
import { startSiteWithOwnSandbox } from '../scripts/site.ts';
import { sandboxUp } from '../tests/support/sandbox-up.ts';

const STARTS = Math.max(1, Number(process.env.FIRST_RUN_STARTS ?? 3));
const WORKERS = process.env.FIRST_RUN_WORKERS ?? '1';

async function post(url: string, name: string, body: unknown): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(`${url}/api/experiments/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

const names = EXPERIMENT_NAMES;
const first = new Map<string, number[]>(names.map((name) => [name, []]));
const second = new Map<string, number[]>(names.map((name) => [name, []]));
for (let start = 1; start <= STARTS; start += 1) {
  const site = await startSiteWithOwnSandbox({
    WORKERS,
    EXPLORER_BURST: '10000',
    EXPLORER_RATE: '10000',
  });
  try {
    const upMs = await sandboxUp(site.url, 120_000, 50);
    console.log(`start ${start}: the site answered, then said up after ${upMs.toFixed(0)} ms more`);
    for (const [round, into] of [first, second].entries()) {
      for (const name of names) {
        const { ms, status } = await post(site.url, name, EXPERIMENT_TABLE[name].example);
        into.get(name)!.push(ms);
        if (status !== 200) console.log(`  ${name}: answered ${status} on run ${round + 1}`);
      }
    }
  } finally {
    await site.close();
  }
}

const show = (values: number[]) => values.map((ms) => ms.toFixed(0).padStart(5)).join(' ');
console.log(`\nfirst run of each experiment after "up", ms (${STARTS} starts, WORKERS=${WORKERS}):`);
for (const name of names) {
  const runs = first.get(name)!;
  console.log(
    `  ${name.padEnd(14)} first ${show(runs)}   max ${Math.max(...runs)
      .toFixed(0)
      .padStart(4)}   second ${show(second.get(name)!)}`,
  );
}
