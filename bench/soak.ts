// A soak with faults: the built site (WORKERS processes) on a sandbox of its own, mixed explorer runs
// from closed-loop readers for N minutes, and every `--kill-every` seconds a kill -9 of a sandbox
// node, the standalone and each cluster node in turn (the sandbox's supervisor starts it again).
// Prints total runs, 5xx, the failures after each kill and the seconds until runs succeeded again,
// what /api/sandbox said meanwhile, memory (RSS of the site and of each valkey-server) and the keys
// left behind at the end. Not part of the suite; asserts nothing.
//
// node bench/soak.ts [--minutes 10] [--readers 6] [--workers 2] [--kill-every 60] [--pause-ms 25]
//
// The sandbox is started here, in this process (as tests/support/explorer.ts does), and handed to the
// site with VALKEY_URL / VALKEY_CLUSTER_URL: so this process holds the admin's password and can count
// every key left on every server at the end, which the site's own sandbox would not let it do.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Valkey } from 'iovalkey';
import { startSite } from '../scripts/site.ts';
import { startSandbox } from '../server/sandbox/sandbox.ts';
import { mixedRun } from '../tests/support/mixed-runs.ts';
import { processTable, processTreeOf } from '../tests/support/processes.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { sandboxUp } from '../tests/support/sandbox-up.ts';

const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    readers: { type: 'string', default: '6' },
    workers: { type: 'string', default: '2' },
    'kill-every': { type: 'string', default: '60' },
    'pause-ms': { type: 'string', default: '25' },
  },
});
function positive(name: keyof typeof flags): number {
  const value = Number(flags[name]);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name} must be a positive number, not ${flags[name]}`);
  return value;
}
const MINUTES = positive('minutes');
const READERS = Math.floor(positive('readers'));
const WORKERS = Math.floor(positive('workers'));
const KILL_EVERY_S = positive('kill-every');
/** Each reader's pause between runs (longer after a failure, as a reader would wait): a soak, not a flood. */
const PAUSE_MS = Number(flags['pause-ms']);
/** Logical databases of the standalone node: the pool's 24 and database 0 for the leases. */
const DATABASES = 25;

interface Outcome {
  at: number; // ms since the soak began, when the answer came
  ok: boolean;
  what: string; // '200', '503 SANDBOX_DOWN', 'wrong: …', 'connection: …'
  /** The part of the sandbox the run needs: the cluster for slot and route, else the standalone. */
  part: 'standalone' | 'cluster';
}

const partOf = (kind: string): Outcome['part'] =>
  kind === 'slot' || kind === 'route' ? 'cluster' : 'standalone';

interface Kill {
  at: number;
  node: string;
  part: Outcome['part'];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- processes, from /proc ----

function rssMb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Number(line[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** This process's valkey-server child on `port` (valkey-server retitles itself `… 127.0.0.1:<port>`). */
function valkeyPid(port: number): number | null {
  const mine = processTable().filter((p) => p.ppid === process.pid && p.comm.startsWith('valkey'));
  return mine.find((p) => new RegExp(`:${port}\\b|--port ${port}\\b`).test(p.cmdline))?.pid ?? null;
}

// ---- the soak ----

const sandbox = await startSandbox({ databases: DATABASES });
const cluster = sandbox.cluster!;
const standalonePort = Number(new URL(sandbox.standalone.url).port);
const nodes: Array<{ name: string; port: number }> = [
  { name: 'standalone', port: standalonePort },
  ...cluster.seeds.map((seed, i) => ({ name: `cluster node ${i + 1}`, port: seed.port })),
];
const site = await startSite({
  VALKEY_URL: sandbox.standalone.url,
  VALKEY_CLUSTER_URL: cluster.url,
  WORKERS: String(WORKERS),
  EXPLORER_BURST: '1000000',
  EXPLORER_RATE: '1000000',
});

function memory(): string {
  const siteMb = processTreeOf(site.pid)
    .filter((p) => !p.comm.startsWith('valkey'))
    .reduce((sum, p) => sum + rssMb(p.pid), 0);
  const valkeys = nodes.map((n) => {
    const pid = valkeyPid(n.port);
    return `${n.name} ${pid ? rssMb(pid).toFixed(1) : '-'}`;
  });
  return `RSS MB: site (${WORKERS > 1 ? `${WORKERS} workers and their primary` : 'one process'}) ${siteMb.toFixed(1)}; valkey-server: ${valkeys.join(', ')}`;
}

const outcomes: Outcome[] = [];
const kills: Kill[] = [];
const sandboxSaid: Array<{ at: number; status: string }> = [];
const t0 = Date.now();
const now = () => Date.now() - t0;
const endAt = MINUTES * 60_000;

try {
  await sandboxUp(site.url, 30_000);
  console.log(
    `soak: ${MINUTES} min, ${READERS} readers, WORKERS=${WORKERS}, a node killed every ${KILL_EVERY_S} s; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
  console.log(`at start: ${memory()}`);

  let next = 0;
  const reader = async () => {
    const client = new KeepAliveClient(site.url);
    while (now() < endAt) {
      const run = mixedRun(next++);
      // The part it ran on is added once, below.
      let outcome: Omit<Outcome, 'part'>;
      try {
        const answer = await client.post(`/api/experiments/${run.kind}`, JSON.stringify(run.body));
        const body = answer.body as { result?: unknown; error?: { code: string } };
        if (answer.status !== 200) {
          outcome = { at: now(), ok: false, what: `${answer.status} ${body.error?.code} (${run.kind})` };
        } else {
          let wrong: string | null;
          try {
            wrong = run.check(body.result);
          } catch (error) {
            wrong = `unreadable answer (${(error as Error).message})`;
          }
          outcome = { at: now(), ok: !wrong, what: wrong ? `wrong ${run.kind}: ${wrong}` : '200' };
        }
      } catch (error) {
        outcome = { at: now(), ok: false, what: `connection: ${(error as Error).message} (${run.kind})` };
      }
      outcomes.push({ ...outcome, part: partOf(run.kind) });
      await sleep(outcome.ok ? PAUSE_MS : 4 * PAUSE_MS);
    }
    client.close();
  };

  const killer = async () => {
    for (let k = 0; ; k++) {
      const at = (k + 1) * KILL_EVERY_S * 1000;
      if (at >= endAt - 10_000) return; // leave the last stretch to recover in
      await sleep(at - now());
      const node = nodes[k % nodes.length]!;
      const pid = valkeyPid(node.port);
      if (!pid) {
        console.log(
          `${(now() / 1000).toFixed(0)} s: ${node.name} has no process to kill (still restarting?)`,
        );
        continue;
      }
      process.kill(pid, 'SIGKILL');
      kills.push({ at: now(), node: node.name, part: node.name === 'standalone' ? 'standalone' : 'cluster' });
      console.log(`${(now() / 1000).toFixed(0)} s: kill -9 ${node.name} (pid ${pid}, port ${node.port})`);
    }
  };

  const watcher = async () => {
    while (now() < endAt) {
      try {
        const response = await fetch(`${site.url}/api/sandbox`, { signal: AbortSignal.timeout(3000) });
        const body = (await response.json()) as { sandbox?: string };
        sandboxSaid.push({ at: now(), status: body.sandbox ?? String(response.status) });
      } catch (error) {
        sandboxSaid.push({ at: now(), status: `no answer (${(error as Error).message})` });
      }
      await sleep(1000);
    }
  };

  const minutely = async () => {
    for (let m = 1; m * 60_000 < endAt; m++) {
      await sleep(m * 60_000 - now());
      const done = outcomes.length;
      const failed = outcomes.filter((o) => !o.ok).length;
      console.log(`${m} min: ${done} runs, ${failed} failed; ${memory()}`);
    }
  };

  await Promise.all([...Array.from({ length: READERS }, reader), killer(), watcher(), minutely()]);
  await sleep(2000); // runs under way end and give their leases back

  // ---- figures ----
  const fivexx = outcomes.filter((o) => /^5\d\d /.test(o.what));
  const tally = (list: Outcome[]) => {
    const counts = new Map<string, number>();
    for (const o of list) if (!o.ok) counts.set(o.what, (counts.get(o.what) ?? 0) + 1);
    return (
      [...counts]
        .sort((a, b) => b[1] - a[1])
        .map(([what, n]) => `${n}× ${what}`)
        .join('; ') || 'none'
    );
  };
  console.log(
    `\nruns: ${outcomes.length} (${(outcomes.length / (endAt / 1000)).toFixed(0)}/s), failed ${outcomes.filter((o) => !o.ok).length}, 5xx ${fivexx.length}`,
  );
  console.log(`failures by kind: ${tally(outcomes)}`);
  console.log('\nafter each kill, the runs on the part killed (until the next kill):');
  for (const [k, kill] of kills.entries()) {
    const until = kills[k + 1]?.at ?? endAt;
    // The runs on the part that was killed: a failure of the other part is an earlier kill's.
    const stretch = outcomes.filter((o) => o.at >= kill.at && o.at < until);
    const window = stretch.filter((o) => o.part === kill.part);
    const failed = window.filter((o) => !o.ok);
    const otherFailed = stretch.filter((o) => o.part !== kill.part && !o.ok).length;
    const lastFailure = failed.at(-1)?.at;
    const recovered =
      failed.length === 0
        ? 'no run failed'
        : lastFailure! > until - 5000
          ? `runs still failing when the next stretch began (last failure ${((lastFailure! - kill.at) / 1000).toFixed(1)} s after the kill)`
          : `runs succeed again ${((lastFailure! - kill.at) / 1000).toFixed(1)} s after the kill`;
    // What the status said while this part's runs failed: its answers (one a second) between the
    // kill and the last failure.
    const outage = sandboxSaid.filter((s) => s.at >= kill.at && failed.length > 0 && s.at <= lastFailure!);
    const said = `/api/sandbox during the outage: ${outage.length ? [...Map.groupBy(outage, (s) => s.status)].map(([status, list]) => `${list.length}× ${status}`).join(', ') : '-'}`;
    console.log(
      `  ${(kill.at / 1000).toFixed(0)} s, ${kill.node}: ${window.length} ${kill.part} runs, ${failed.length} failed (and ${otherFailed} of the other part's), 5xx ${window.filter((o) => /^5\d\d /.test(o.what)).length}; ${recovered}; ${said}; ${tally(failed)}`,
    );
  }
  console.log(`\nat end: ${memory()}`);

  // ---- keys left behind, as the admin ----
  const left: string[] = [];
  const standalone = new Valkey(sandbox.standalone.url, { maxRetriesPerRequest: 1 });
  for (let db = 0; db < DATABASES; db++) {
    await standalone.select(db);
    for (const key of await standalone.keys('*')) left.push(`standalone db ${db}: ${key}`);
  }
  standalone.disconnect();
  for (const url of cluster.url.split(',')) {
    const node = new Valkey(url, { maxRetriesPerRequest: 1 });
    for (const key of await node.keys('*')) left.push(`${new URL(url).port}: ${key}`);
    node.disconnect();
  }
  // The explorer leaves '{emq}:version'-style identity keys nowhere: every run's keyspace is flushed.
  console.log(
    `keys left behind: ${left.length}${left.length ? '\n  ' + left.slice(0, 20).join('\n  ') : ''}`,
  );
  console.log(
    `load average at end ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
} finally {
  await site.close();
  await sandbox.stop();
}
process.exit(0);
