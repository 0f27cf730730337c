// A soak with faults and floods: the built site (WORKERS processes, with its own rate limits on) on a
// sandbox of its own, mixed explorer runs from closed-loop readers for N minutes — each reader from an
// address of its own, at a pace inside the site's rate limit (an honest reader) — and reshards of both
// modes (keys, atomic) from readers of their own, each from an address of its own (one reshard per
// reader at a time) — and every `--kill-every` seconds a fault, in turn: a kill -9 of the standalone or
// of a cluster node (the sandbox's supervisor starts it again), a SIGSTOP of a cluster node for
// `--stop-s` seconds (then SIGCONT), and a kill -9 of a site worker (the primary starts another; with
// WORKERS=1 none is killed). Halfway between faults, a flood for `--flood-s` seconds, in turn: slow
// bodies from `--flood-addresses` × `--flood-per-address` connections (127.21.x.y; whole headers, a
// byte every 4 s, opened again 1 s after any close), then one address pipelining the catalogue on 32
// connections (tests/support/floods.ts; each in a process of its own). `--max-connections` sets the
// site's MAX_CONNECTIONS (per worker), so a flood this machine can hold fills the cap.
// Prints total runs, 5xx by code, the honest readers' p50/p99 in calm and during each fault and flood,
// the failures after each fault and the seconds until runs succeeded again, what /api/sandbox said
// meanwhile, the RSS of each process (the site's primary and workers, each valkey-server) at start, at
// 1 min and at the end, the machine's load, the keys left behind at the end (Valkey 8 and 9.1), and the
// valkey-servers the site started still running 10 s after it closed. Not part of the suite; asserts
// nothing.
//
// node bench/soak.ts [--minutes 10] [--readers 6] [--workers 2] [--kill-every 60] [--pause-ms 500]
//                    [--reshard-readers 2] [--stop-s 10] [--flood-s 20] [--flood-addresses 300]
//                    [--flood-per-address 8] [--max-connections 1000]
//
// The sandbox is started here, in this process (as tests/support/explorer.ts does), and handed to the
// site with VALKEY_URL / VALKEY_CLUSTER_URL: so this process holds the admin's password and can count
// every key left on every server at the end, which the site's own sandbox would not let it do.

import { readFileSync } from 'node:fs';
import { Valkey } from 'iovalkey';
import { startSite } from '../scripts/site.ts';
import { startSandbox } from '../server/sandbox/sandbox.ts';
import { mixedRun } from '../tests/support/mixed-runs.ts';
import { alive, processTable, processTreeOf } from '../tests/support/processes.ts';
import { requestFrom } from '../tests/support/from-address.ts';
import { KeepAliveClient } from './keep-alive-client.ts';
import { flagValues, positiveFlag } from './flags.ts';
import { sandboxUp } from '../tests/support/sandbox-up.ts';
import { addressesIn, startFlood, type FloodOptions } from '../tests/support/floods.ts';
import { adminClient, queueKeysOn, siteServers as serversOf } from '../tests/support/site-servers.ts';

const flags = flagValues({
  minutes: '10',
  readers: '6',
  workers: '2',
  'kill-every': '60',
  'pause-ms': '500',
  'reshard-readers': '2',
  'stop-s': '10',
  'flood-s': '20',
  'flood-addresses': '300',
  'flood-per-address': '8',
  'max-connections': '1000',
});
const positive = (name: keyof typeof flags) => positiveFlag(flags, name);
const MINUTES = positive('minutes');
const READERS = Math.floor(positive('readers'));
const WORKERS = Math.floor(positive('workers'));
const KILL_EVERY_S = positive('kill-every');
/**
 * Each reader's pause between runs (longer after a failure, as a reader would wait): a soak, not a
 * flood, and inside the site's rate limit (5 runs a second per address, shared among the workers; a
 * kept-alive reader stays on one worker, so it has that worker's share).
 */
const PAUSE_MS = Number(flags['pause-ms']);
/** Readers of reshards, per mode; each from an address of its own, one reshard at a time. */
const RESHARD_READERS = Number(flags['reshard-readers']);
const STOP_S = positive('stop-s');
const FLOOD_S = positive('flood-s');
const FLOOD_ADDRESSES = Math.floor(positive('flood-addresses'));
const FLOOD_PER_ADDRESS = Math.floor(positive('flood-per-address'));
const MAX_CONNECTIONS = Math.floor(positive('max-connections'));
const RESHARD_MODES = ['keys', 'atomic'] as const;
/** Logical databases of the standalone node: the pool's 24 and database 0 for the leases. */
const DATABASES = 25;

interface Outcome {
  at: number; // ms since the soak began, when the answer came
  ok: boolean;
  what: string; // '200', '503 SANDBOX_DOWN', 'wrong: …', 'connection: …'
  /** The part of the sandbox the run needs: the cluster for slot, route and a keys reshard, the 9.1
   * cluster for an atomic reshard, else the standalone. */
  part: 'standalone' | 'cluster' | 'atomic';
  kind: string;
  /** How long the answer took, in ms (the honest reader's latency). */
  ms: number;
}

const partOf = (kind: string): Outcome['part'] =>
  kind === 'slot' || kind === 'route' ? 'cluster' : 'standalone';

interface Kill {
  at: number;
  node: string;
  /** The part whose runs it fails; `all` for a site worker (any run may have been on it). */
  part: Outcome['part'] | 'all';
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
  MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  // The Valkey 9.1 cluster from the start, as `npm start` runs it (a test's site waits for first use).
  VALKEY9_AT_START: '1',
});

/** The RSS of each process of the site (primary, workers) and of each valkey-server, in MB. */
function memory(): string {
  const tree = processTreeOf(site.pid);
  const own = tree.filter((p) => !p.comm.startsWith('valkey'));
  // The primary, its workers, and the small helpers it runs (the sandbox's watchdog), each by name.
  const label = (p: (typeof own)[number]) =>
    p.pid === site.pid ? 'primary' : p.cmdline.includes('serve.ts') ? 'worker' : p.comm;
  const sites = own.map((p) => `${label(p)} ${p.pid} ${rssMb(p.pid).toFixed(1)}`);
  const valkeys = nodes.map((n) => {
    const pid = valkeyPid(n.port);
    return `${n.name} ${pid ? rssMb(pid).toFixed(1) : '-'}`;
  });
  const nines = serversOf(site.pid)
    .filter((server) => server.version === '9.1')
    .map((server) => `9.1 node ${server.port} ${rssMb(server.pid).toFixed(1)}`);
  return `RSS MB: ${sites.join(', ')}; valkey-server: ${[...valkeys, ...nines].join(', ')}`;
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const outcomes: Outcome[] = [];
/** Every valkey-server seen below the site (read each minute and at the end): none may outlive it. */
const siteServers = new Set<number>();
const noteServers = () => {
  for (const p of processTreeOf(site.pid)) if (p.comm.startsWith('valkey')) siteServers.add(p.pid);
};
const kills: Kill[] = [];
const sandboxSaid: Array<{ at: number; status: string }> = [];
/** Each flood: when it began and ended (ms since the soak began), what it was, and its counts. */
const floods: Array<{ at: number; until: number; name: string; counts?: unknown }> = [];
const t0 = Date.now();
const now = () => Date.now() - t0;
const endAt = MINUTES * 60_000;

try {
  await sandboxUp(site.url, 30_000);
  console.log(
    `soak: ${MINUTES} min, ${READERS} readers (a run each ${PAUSE_MS} ms after the last), WORKERS=${WORKERS}, the site's own rate limits, MAX_CONNECTIONS=${MAX_CONNECTIONS}, a fault every ${KILL_EVERY_S} s, a flood of ${FLOOD_S} s halfway between; load average ${load()}`,
  );
  console.log(`at start: ${memory()}`);

  let next = 0;
  const reader = async (_: unknown, r: number) => {
    const client = new KeepAliveClient(site.url, `127.0.0.${10 + r}`);
    while (now() < endAt) {
      const run = mixedRun(next++);
      // The part it ran on is added once, below.
      let outcome: Omit<Outcome, 'part' | 'kind' | 'ms'>;
      const asked = now();
      try {
        const answer = await client.post(`/api/experiments/${run.kind}`, JSON.stringify(run.body));
        const body = answer.body as { result?: unknown; code?: string };
        if (answer.status !== 200) {
          outcome = { at: now(), ok: false, what: `${answer.status} ${body.code} (${run.kind})` };
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
      outcomes.push({ ...outcome, part: partOf(run.kind), kind: run.kind, ms: now() - asked });
      await sleep(outcome.ok ? PAUSE_MS : 4 * PAUSE_MS);
    }
    client.close();
  };

  // A reshard reader: one at a time from its own address, 1 s between them (3 s after a failure).
  const resharder = async (mode: (typeof RESHARD_MODES)[number], address: string, queue: string) => {
    const kind = `reshard ${mode}`;
    const part: Outcome['part'] = mode === 'atomic' ? 'atomic' : 'cluster';
    while (now() < endAt) {
      let outcome: Omit<Outcome, 'part' | 'kind' | 'ms'>;
      const asked = now();
      try {
        const answer = await requestFrom(address, `${site.url}/api/experiments/reshard`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ queue, mode }),
        });
        const body = JSON.parse(answer.body.toString()) as {
          result?: { leftBehind?: number };
          code?: string;
        };
        if (answer.status !== 200)
          outcome = { at: now(), ok: false, what: `${answer.status} ${body.code} (${kind})` };
        else if (body.result?.leftBehind)
          outcome = { at: now(), ok: false, what: `wrong ${kind}: left ${body.result.leftBehind} behind` };
        else outcome = { at: now(), ok: true, what: '200' };
      } catch (error) {
        outcome = { at: now(), ok: false, what: `connection: ${(error as Error).message} (${kind})` };
      }
      outcomes.push({ ...outcome, part, kind, ms: now() - asked });
      await sleep(outcome.ok ? 1000 : 3000);
    }
  };
  const resharders = RESHARD_MODES.flatMap((mode, m) =>
    Array.from({ length: RESHARD_READERS }, (_, r) =>
      resharder(mode, `127.0.0.${100 + 10 * m + r}`, `soak-${mode}-${r}`),
    ),
  );

  // The faults in turn: the standalone and each cluster node killed, a cluster node stopped, a worker killed.
  type Fault = { name: string; part: Kill['part']; act(): string | null };
  const killNode = (node: (typeof nodes)[number]): Fault => ({
    name: `kill -9 ${node.name}`,
    part: node.name === 'standalone' ? 'standalone' : 'cluster',
    act() {
      const pid = valkeyPid(node.port);
      if (!pid) return null;
      process.kill(pid, 'SIGKILL');
      return `pid ${pid}, port ${node.port}`;
    },
  });
  const stopNode = (node: (typeof nodes)[number]): Fault => ({
    name: `SIGSTOP ${node.name} for ${STOP_S} s`,
    part: 'cluster',
    act() {
      const pid = valkeyPid(node.port);
      if (!pid) return null;
      process.kill(pid, 'SIGSTOP');
      setTimeout(() => alive(pid) && process.kill(pid, 'SIGCONT'), STOP_S * 1000);
      return `pid ${pid}, port ${node.port}`;
    },
  });
  const killWorker: Fault = {
    name: 'kill -9 a site worker',
    part: 'all',
    act() {
      if (WORKERS < 2) return null;
      const worker = processTable().find((p) => p.ppid === site.pid && p.comm.startsWith('node'));
      if (!worker) return null;
      process.kill(worker.pid, 'SIGKILL');
      return `pid ${worker.pid}`;
    },
  };
  const faults: Fault[] = [
    killNode(nodes[0]!),
    killNode(nodes[1]!),
    stopNode(nodes[2]!),
    killWorker,
    killNode(nodes[3]!),
    stopNode(nodes[1]!),
  ];

  const killer = async () => {
    for (let k = 0; ; k++) {
      const at = (k + 1) * KILL_EVERY_S * 1000;
      if (at >= endAt - 10_000) return; // leave the last stretch to recover in
      await sleep(at - now());
      const fault = faults[k % faults.length]!;
      const what = fault.act();
      if (!what) {
        console.log(
          `${(now() / 1000).toFixed(0)} s: ${fault.name}: nothing to act on (restarting, or one worker)`,
        );
        continue;
      }
      kills.push({ at: now(), node: fault.name, part: fault.part });
      console.log(`${(now() / 1000).toFixed(0)} s: ${fault.name} (${what})`);
    }
  };

  // Halfway between faults, a flood in turn: slow bodies from many addresses, the catalogue from one.
  const floodKinds: Array<{ name: string; options: Omit<FloodOptions, 'url' | 'seconds'> }> = [
    {
      name: `slow bodies from ${FLOOD_ADDRESSES} addresses × ${FLOOD_PER_ADDRESS}`,
      options: {
        kind: 'slow-body',
        addresses: addressesIn('127.21', FLOOD_ADDRESSES),
        perAddress: FLOOD_PER_ADDRESS,
        byteEveryMs: 4000,
        reopenMs: 1000,
      },
    },
    {
      name: 'the catalogue from one address, 32 connections × 50 pipelined',
      options: { kind: 'catalogue', addresses: ['127.21.240.1'], perAddress: 32, pipeline: 50, reopenMs: 0 },
    },
  ];
  const flooder = async () => {
    for (let k = 0; ; k++) {
      const at = (k + 0.5) * KILL_EVERY_S * 1000;
      if (at + FLOOD_S * 1000 >= endAt - 10_000) return;
      await sleep(at - now());
      const { name, options } = floodKinds[k % floodKinds.length]!;
      const flood = startFlood({ ...options, url: site.url, seconds: FLOOD_S + 5 });
      const entry: (typeof floods)[number] = { at: now(), until: now() + FLOOD_S * 1000, name };
      floods.push(entry);
      console.log(`${(now() / 1000).toFixed(0)} s: flood: ${name}, ${FLOOD_S} s`);
      await sleep(FLOOD_S * 1000);
      entry.counts = await flood.stop();
      entry.until = now();
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
      noteServers();
      console.log(`${m} min: ${done} runs, ${failed} failed; load ${load()}; ${memory()}`);
    }
  };

  await Promise.all([
    ...Array.from({ length: READERS }, reader),
    ...resharders,
    killer(),
    flooder(),
    watcher(),
    minutely(),
  ]);
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
  const byCode = Map.groupBy(fivexx, (o) => o.what.split(' ').slice(0, 2).join(' '));
  console.log(
    `5xx by code: ${[...byCode].map(([code, list]) => `${list.length}× ${code}`).join(', ') || 'none'}`,
  );
  // The honest readers' latency (the mixed runs, each reader at its own address), by stretch.
  const honest = outcomes.filter((o) => !o.kind.startsWith('reshard'));
  const percentile = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
  };
  const figures = (list: Outcome[]) =>
    `${list.length} runs, ${list.filter((o) => !o.ok).length} failed, p50 ${percentile(
      list.map((o) => o.ms),
      50,
    )} ms, p99 ${percentile(
      list.map((o) => o.ms),
      99,
    )} ms`;
  const inStretch = (from: number, to: number) => honest.filter((o) => o.at >= from && o.at < to);
  const windows = [
    ...kills.map((k) => ({ name: `fault: ${k.node}`, at: k.at, until: k.at + 20_000 })),
    ...floods.map((f) => ({ name: `flood: ${f.name}`, at: f.at, until: f.until })),
  ];
  const calm = honest.filter((o) => !windows.some((w) => o.at >= w.at && o.at < w.until));
  console.log(`\nhonest readers' latency (answer time of the mixed runs):`);
  console.log(`  calm (outside every fault's first 20 s and every flood): ${figures(calm)}`);
  for (const w of windows.sort((a, b) => a.at - b.at))
    console.log(
      `  ${(w.at / 1000).toFixed(0)} s, ${w.name} (${((w.until - w.at) / 1000).toFixed(0)} s): ${figures(inStretch(w.at, w.until))}`,
    );
  for (const f of floods) console.log(`  flood counts, ${f.name}: ${JSON.stringify(f.counts)}`);
  for (const mode of RESHARD_MODES) {
    const mine = outcomes.filter((o) => o.kind === `reshard ${mode}`);
    console.log(
      `reshard ${mode}: ${mine.length} runs, ${mine.filter((o) => o.ok).length} ok, 5xx ${mine.filter((o) => /^5\d\d /.test(o.what)).length}`,
    );
  }
  console.log('\nafter each kill, the runs on the part killed (until the next kill):');
  for (const [k, kill] of kills.entries()) {
    const until = kills[k + 1]?.at ?? endAt;
    // The runs on the part that was killed: a failure of the other part is an earlier kill's.
    const stretch = outcomes.filter((o) => o.at >= kill.at && o.at < until);
    const hit = (o: Outcome) => kill.part === 'all' || o.part === kill.part;
    const window = stretch.filter(hit);
    const failed = window.filter((o) => !o.ok);
    const otherFailed = stretch.filter((o) => !hit(o) && !o.ok).length;
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
  // Every valkey-server below the site now (the workers' Valkey 9.1 clusters among them): none may
  // outlive it (issue 25.1).
  noteServers();

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
  // And on the Valkey 9.1 cluster the site's primary started: queue keys (the site's own line keys aside).
  for (const server of serversOf(site.pid).filter((s) => s.version === '9.1')) {
    const client = adminClient(server);
    const count = await queueKeysOn(client).catch(() => -1);
    client.disconnect();
    if (count !== 0)
      left.push(`9.1 node ${server.port}: ${count < 0 ? 'unreadable' : `${count} queue keys`}`);
  }
  console.log(
    `keys left behind: ${left.length}${left.length ? '\n  ' + left.slice(0, 20).join('\n  ') : ''}`,
  );
  console.log(`load average at end ${load()}`);
} finally {
  await site.close();
  await sandbox.stop();
}
await sleep(10_000);
const leftover = [...siteServers].filter(alive);
console.log(
  `valkey-servers the site started (${siteServers.size}) still running 10 s after it closed: ${leftover.length}${leftover.length ? ` (pids ${leftover.join(', ')})` : ''}`,
);
process.exit(0);
