// The floor of issue 26's site ÷ Valkey ratio: what any Node front with iovalkey pays for our runs. It
// captures, per experiment and input, the writes a real run sends Valkey and the answer it gives
// (floor-capture.ts), then serves them from a bare node:http server (floor-server.ts) loaded by the same
// readers as the site (reader-load.ts), and measures its CPU and Valkey's per run as explorer-load.ts
// measures the site's (run-cost.ts). Our ratio minus the floor's is what our own code adds.
// explorer-load.ts prints the floor beside the site; run alone it prints the floor's table only.
// Prints figures; asserts nothing.
// Run: node bench/ratio-floor.ts   (EXPLORER_BENCH_ONLY, EXPLORER_BENCH_REQUESTS as for explorer-load.ts)

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { startSandbox } from '../server/sandbox/sandbox.ts';
import { explorerPasswordFor, siteSandboxOptions } from '../server/explorer/runtime.ts';
import { WORKLOADS } from './explorer-workloads.ts';
import { captureTraces } from './floor-capture.ts';
import { load, measureWarm } from './reader-load.ts';
import { cpuBelow, loadAverage, ratio, threadsCpuMs, type Cost } from './run-cost.ts';

/** Per experiment and readers: the floor's CPU per run and Valkey's, on a sandbox of its own. */
export async function measureFloor(
  names: string[],
  levels: number[],
  requests: number,
): Promise<Map<string, Map<number, Cost>>> {
  const sandbox = await startSandbox(siteSandboxOptions(randomBytes(18).toString('base64url')));
  // The captured runs' runtime, on VALKEY_URL, sets the account up with the password derived from it.
  const password = explorerPasswordFor({ VALKEY_URL: sandbox.standalone.url });
  const dir = mkdtempSync(join(tmpdir(), 'ratio-floor-'));
  const costs = new Map<string, Map<number, Cost>>();
  try {
    process.env.VALKEY_URL = sandbox.standalone.url;
    process.env.VALKEY_CLUSTER_URL = sandbox.cluster!.url;
    const traces = await captureTraces(names, requests);
    writeFileSync(join(dir, 'traces.json'), JSON.stringify(traces));
    const floor = spawn(process.execPath, [join(import.meta.dirname, 'floor-server.ts')], {
      env: {
        ...process.env,
        FLOOR_TRACES: join(dir, 'traces.json'),
        FLOOR_VALKEY_URL: sandbox.standalone.url,
        FLOOR_EXPLORER_PASSWORD: password,
        // Leases and locks of the captured runs were this process's: <host>:<pid>:…
        FLOOR_CAPTURED_TOKEN: `${hostname()}:${process.pid}:`,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(floor.stdout!, 'data')) as [Buffer];
      const url = `http://127.0.0.1:${Number(String(line).trim())}`;
      const workloads = names.map((name) => [name, WORKLOADS[name]!] as [string, (i: number) => unknown]);
      await measureWarm(url, workloads, async (name) => {
        for (const clients of levels) {
          const before = { site: threadsCpuMs(floor.pid!), valkey: cpuBelow(process.pid)?.valkey ?? 0 };
          const r = await load(url, name, WORKLOADS[name]!, clients, requests);
          if (r.failures !== 'none') throw new Error(`the floor refused ${name}: ${r.failures}`);
          const cost = {
            site: (threadsCpuMs(floor.pid!) - before.site) / requests,
            valkey: ((cpuBelow(process.pid)?.valkey ?? 0) - before.valkey) / requests,
            load: loadAverage(),
          };
          costs.set(name, (costs.get(name) ?? new Map()).set(clients, cost));
          const cells = [cost.site.toFixed(3), cost.valkey.toFixed(3), ratio(cost).toFixed(2)];
          console.log(
            `floor ${name.padEnd(15)} ${String(clients).padStart(3)} readers: ${cells.join(' ')}   ${cost.load}`,
          );
        }
      });
    } finally {
      floor.kill();
    }
  } finally {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return costs;
}

if (process.argv[1] === import.meta.filename) {
  const only = process.env.EXPLORER_BENCH_ONLY?.split(',');
  const requests = Math.min(Number(process.env.EXPLORER_BENCH_REQUESTS ?? 1000), 5000);
  const names = Object.keys(WORKLOADS).filter((name) => !only || only.includes(name));
  const costs = await measureFloor(names, [10, 50], requests);
  console.log('\nthe floor: site ÷ Valkey CPU per run of a bare node:http + iovalkey replay of our runs\n');
  console.log('experiment      floor@10  valkey@10  ratio@10   floor@50  valkey@50  ratio@50   load average');
  for (const [name, byLevel] of costs) {
    const [a, b] = [byLevel.get(10)!, byLevel.get(50)!];
    const cells = [a.site, a.valkey, ratio(a), b.site, b.valkey, ratio(b)].map((n, i) =>
      n.toFixed(i % 3 === 2 ? 2 : 3).padStart(i % 3 === 0 ? 9 : 10),
    );
    console.log(`${name.padEnd(15)}${cells.join(' ')}   ${a.load}; ${b.load}`);
  }
}
