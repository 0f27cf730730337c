// The deployment guide, followed as written: a fresh clone of this repository, the command lines of
// docs/deploy.md's blocks marked `deploy-test` run as they stand (the install root /srv/owned-keyspace read
// as the clone's folder) with Debian's own Node 20 first on the PATH; the shipped systemd unit checked by
// `systemd-analyze verify` and its ExecStart line started as systemd would (its WorkingDirectory, its
// EnvironmentFile filled from deploy/site.env), with WORKERS 1 and 2, on Valkey servers started from the
// shipped configuration files. Then what an operator relies on: readiness (200 up, 503 with the sandbox
// stopped, 503 while draining), one JSON access-log line per request, the metrics (parsed by a real
// Prometheus text parser, counters moving with runs, never on the public port), and the drain on SIGTERM
// (runs of every kind in flight, a 20,000-job reshard of each mode among them, all answered 200).
//
// `npm ci` and `npm run build` run in the clone as the guide says, from the machine's npm cache: about a
// minute each on two cores. The native module is the one scripts/setup.sh built from these sources (the
// guide's `cargo build` line is not marked: it would rebuild the module's dependencies for minutes).

import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXPERIMENT_NAMES, rowOf } from '../../server/contract/experiment-table.ts';
import { projectRoot } from '../../server/project-root.ts';
import { freePort } from '../../server/sandbox/free-port.ts';
import { valkey9Build } from '../../server/sandbox/valkey9-build.ts';
import { halfSent } from '../support/half-sent.ts';
import { parsePrometheusText, sampleSum } from '../support/prometheus-text.ts';
import { INSTALL_ROOT, startShippedValkey, type ShippedValkey } from '../support/shipped-valkey.ts';
import { boundedTeardown } from '../support/teardown.ts';

const ROOT = projectRoot();
/** Debian's Node (20 on bookworm) ahead of everything, as on a deployer's machine. */
const DEBIAN_PATH = `/usr/bin:/bin:${process.env.PATH ?? ''}`;
const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze';

/** The command lines of docs/deploy.md's blocks marked `deploy-test`, in order. */
function guideLines(): string[] {
  const guide = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
  const blocks = [...guide.matchAll(/^```sh deploy-test\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  return blocks
    .flatMap((block) => block.split('\n'))
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The unit's `Key=value` lines of a section. */
function unitValue(unit: string, key: string): string {
  const line = unit.split('\n').find((l) => l.startsWith(`${key}=`));
  assert.ok(line, `the unit has ${key}=`);
  return line.slice(key.length + 1);
}

/** `KEY=value` lines, as systemd's EnvironmentFile= reads them. */
function readEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

let systemNode = '';
let work = '';
let clone = '';
let valkey: ShippedValkey | undefined;
let unitFile = '';
let envFile = '';
const atomicReady = valkey9Build().state === 'ready';

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'emq-guide-'));
  clone = join(work, 'owned-keyspace');
  execFileSync('git', ['clone', '--quiet', ROOT, clone]);
  // The work tree as it is (changes not committed yet, new files not ignored), so what is tested is
  // what is here; on CI the clone is of a clean checkout, and this adds nothing.
  const diff = execFileSync('git', ['-C', ROOT, 'diff', 'HEAD', '--binary'], { maxBuffer: 64 << 20 });
  if (diff.length > 0) execFileSync('git', ['-C', clone, 'apply', '--whitespace=nowarn'], { input: diff });
  const untracked = execFileSync('git', ['-C', ROOT, 'ls-files', '--others', '--exclude-standard', '-z'], {
    encoding: 'utf8',
  });
  for (const path of untracked.split('\0').filter(Boolean)) {
    mkdirSync(dirname(join(clone, path)), { recursive: true });
    copyFileSync(join(ROOT, path), join(clone, path));
  }
  // The guide's build, as written, in one shell (its `cd` holds for the lines after it).
  const build = guideLines()
    .filter((line) => !line.includes('/readyz'))
    .map((line) => line.replaceAll(INSTALL_ROOT, clone));
  const script = ['set -euo pipefail', 'node --version', ...build].join('\n');
  const result = spawnSync('bash', ['-c', script], {
    cwd: work,
    env: { ...process.env, PATH: DEBIAN_PATH, npm_config_prefer_offline: 'true' },
    encoding: 'utf8',
    timeout: 300_000,
  });
  assert.equal(result.status, 0, `the guide's build failed:\n${result.stdout}\n${result.stderr}`);
  // The build ran with a node older than the code needs first on the PATH (Debian 12's is 20).
  systemNode = result.stdout.split('\n')[0]!;
  valkey = await startShippedValkey();
  // The unit and its environment file where the clone is (the unit names /etc/owned-keyspace/site.env).
  envFile = join(work, 'site.env');
  const unit = readFileSync(join(ROOT, 'deploy', 'owned-keyspace.service'), 'utf8')
    .replaceAll(INSTALL_ROOT, clone)
    .replace(/^EnvironmentFile=.*$/m, `EnvironmentFile=${envFile}`);
  unitFile = join(work, 'owned-keyspace.service');
  writeFileSync(unitFile, unit);
});

after(() =>
  boundedTeardown(async () => {
    await valkey?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }),
);

it('the unit passes systemd-analyze verify, and the guide builds with Debian’s Node first on the PATH', (t) => {
  const verify = spawnSync(SYSTEMD_ANALYZE, ['verify', unitFile], { encoding: 'utf8' });
  assert.equal(verify.status, 0, verify.stderr);
  assert.equal(verify.stderr.trim(), '', 'no warning about the unit');
  const unit = readFileSync(unitFile, 'utf8');
  for (const key of ['User', 'Restart', 'EnvironmentFile', 'KillMode', 'NoNewPrivileges', 'ProtectSystem'])
    unitValue(unit, key);
  const system = spawnSync('bash', ['-c', 'command -v node; node --version'], {
    env: { PATH: DEBIAN_PATH },
    encoding: 'utf8',
  });
  t.diagnostic(`first node on the PATH: ${system.stdout.trim().replace('\n', ' ')}`);
  assert.ok(!system.stdout.includes('node_modules'), 'the project’s own node is not first on the PATH');
  const [major = 0, minor = 0] = systemNode.replace(/^v/, '').split('.').map(Number);
  assert.ok(
    major < 22 || (major === 22 && minor < 18),
    `the build ran under ${systemNode}, older than engines`,
  );
});

interface Service {
  url: string;
  metricsUrl: string;
  env: Record<string, string>;
  child: ChildProcess;
  stdout(): string;
  output(): string;
  exited: Promise<number | null>;
}

/** The unit's ExecStart, started as systemd starts it, with `WORKERS` processes. */
async function startService(workers: number): Promise<Service> {
  const shipped = readEnvFile(readFileSync(join(ROOT, 'deploy', 'site.env'), 'utf8'));
  const port = await freePort();
  const metricsPort = await freePort();
  const ours = {
    HOST: '127.0.0.1',
    PORT: String(port),
    WORKERS: String(workers),
    TRUST_PROXY: '',
    VALKEY_URL: valkey!.standaloneUrl,
    VALKEY_CLUSTER_URL: valkey!.clusterUrl,
    METRICS_PORT: String(metricsPort),
    LOG_ADDRESSES: 'none',
  };
  // The example names every variable the test sets: the file is a deployer's complete starting point.
  assert.deepEqual(Object.keys(shipped).sort(), Object.keys(ours).sort(), 'deploy/site.env names these');
  writeFileSync(
    envFile,
    Object.entries({ ...shipped, ...ours })
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
  );
  const unit = readFileSync(unitFile, 'utf8');
  const [command, ...args] = unitValue(unit, 'ExecStart').split(/\s+/);
  const env = {
    PATH: DEBIAN_PATH,
    HOME: process.env.HOME ?? '/root',
    ...readEnvFile(readFileSync(unitValue(unit, 'EnvironmentFile'), 'utf8')),
  };
  const child = spawn(command!, args, {
    cwd: unitValue(unit, 'WorkingDirectory'),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let output = '';
  child.stdout!.on('data', (d) => ((stdout += d), (output += d)));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The guide's own readiness line, asked until it succeeds.
  const ready = guideLines().find((line) => line.includes('/readyz'))!;
  const deadline = Date.now() + 90_000;
  while (
    spawnSync('bash', ['-c', ready], { env: { ...env, HOST: ours.HOST, PORT: ours.PORT } }).status !== 0
  ) {
    if (child.exitCode !== null) throw new Error(`the service exited:\n${output}`);
    if (Date.now() > deadline) throw new Error(`the service never became ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    env,
    child,
    stdout: () => stdout,
    output: () => output,
    exited,
  };
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  reused: boolean;
}

function ask(
  url: string,
  options: {
    method?: string;
    body?: unknown;
    agent?: Agent;
    from?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(
      url,
      {
        method: options.method ?? (body ? 'POST' : 'GET'),
        agent: options.agent ?? false,
        localAddress: options.from,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
            reused: req.reusedSocket,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(40_000, () => req.destroy(new Error(`no answer from ${url} in 40 s`)));
    req.end(body);
  });
}

const accessLines = (service: Service) =>
  service
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

async function metrics(service: Service) {
  const answer = await ask(service.metricsUrl);
  assert.equal(answer.status, 200, answer.body);
  return parsePrometheusText(answer.body);
}

/** Whether a new connection to the service's port is refused. */
function refused(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port) });
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });
}

/** One run of each experiment, its example from the table (the reshard's made 20,000 jobs, each mode). */
function everyKind(): Array<{ name: string; body: unknown }> {
  const runs: Array<{ name: string; body: unknown }> = EXPERIMENT_NAMES.filter((n) => n !== 'reshard').map(
    (name) => ({ name, body: rowOf(name).example }),
  );
  return runs;
}

for (const workers of [1, 2]) {
  describe(`the unit's ExecStart with WORKERS=${workers}`, () => {
    let service: Service;
    before(async () => {
      service = await startService(workers);
    });
    after(() =>
      boundedTeardown(async () => {
        if (service?.child.exitCode === null) {
          service.child.kill('SIGKILL');
          await service.exited;
        }
      }),
    );

    it('answers /livez and /readyz, and writes one JSON access-log line per request', async () => {
      assert.deepEqual(JSON.parse((await ask(`${service.url}/livez`)).body), { live: true });
      const ready = await ask(`${service.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.equal(JSON.parse(ready.body).ready, true);
      // A line is written once its answer has gone out: a moment for the last one's.
      await new Promise((r) => setTimeout(r, 100));
      const before = accessLines(service).length;
      const sent = [
        await ask(`${service.url}/`),
        await ask(`${service.url}/api/experiments`),
        await ask(`${service.url}/api/experiments/keys`, { body: { queue: 'orders' } }),
        await ask(`${service.url}/api/experiments/keys`, { body: { queue: 'no{braces}' } }),
        await ask(`${service.url}/no-such-page/`),
      ];
      await new Promise((r) => setTimeout(r, 100));
      const lines = accessLines(service).slice(before);
      assert.equal(lines.length, sent.length, 'one line per request');
      assert.deepEqual(
        lines.map((l) => [l.method, l.path, l.status]),
        [
          ['GET', '/', 200],
          ['GET', '/api/experiments', 200],
          ['POST', '/api/experiments/keys', 200],
          ['POST', '/api/experiments/keys', sent[3]!.status],
          ['GET', '/no-such-page/', 404],
        ],
      );
      for (const line of lines) {
        assert.match(String(line.time), /^\d{4}-\d\d-\d\dT/);
        assert.equal(typeof line.ms, 'number');
        assert.ok(Number(line.bytes) > 0, 'bytes sent');
        assert.match(String(line.id), /^[0-9a-f]{12}$/);
        assert.equal(line.address, undefined, 'no address: LOG_ADDRESSES=none');
      }
      assert.equal(lines[2]!.experiment, 'keys');
      assert.equal(lines[3]!.code, JSON.parse(sent[3]!.body).error?.code ?? JSON.parse(sent[3]!.body).code);
    });

    it('serves metrics on METRICS_PORT alone, parsed by a Prometheus parser, counting every worker’s runs', async () => {
      assert.equal((await ask(`${service.url}/metrics`)).status, 404, 'never on the public port');
      const before = await metrics(service);
      const RUNS = 8;
      // From several addresses at once, so that with WORKERS=2 both workers take some.
      const answers = await Promise.all(
        Array.from({ length: RUNS }, (_, i) =>
          ask(`${service.url}/api/experiments/slot`, {
            body: { queue: `m${i}`, other: 'fills' },
            from: `127.0.8.${i + 1}`,
          }),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        Array(RUNS).fill(200),
      );
      const now = await metrics(service);
      const runs = (m: typeof now) => sampleSum(m, 'emq_runs_total', { experiment: 'slot', outcome: 'ok' });
      assert.equal(runs(now) - runs(before), RUNS, 'emq_runs_total moved by the runs made');
      // The parser folds a labelled histogram's series into one (prom2json's shape): its type is what it keeps.
      assert.equal(now.find((f) => f.name === 'emq_run_duration_seconds')?.type, 'HISTOGRAM');
      const up = now.find((f) => f.name === 'emq_server_up')!;
      assert.equal(up.type, 'GAUGE');
      // The deployer's standalone and three cluster nodes; beside them, once this process has reached it,
      // each node of the Valkey 9.1 cluster the site runs itself (role atomic-cluster).
      const deployers = up.metrics.filter((m) => m.labels?.role !== 'atomic-cluster');
      assert.equal(deployers.length, 4, 'the standalone and three cluster nodes');
      assert.ok(
        up.metrics.every((m) => m.value === '1'),
        JSON.stringify(up.metrics),
      );
      for (const name of ['emq_connections_shed_total', 'emq_rate_limited_total', 'emq_http_requests_total'])
        assert.equal(now.find((f) => f.name === name)?.type, 'COUNTER', `${name} is exported`);
      const requests = (m: typeof now) => sampleSum(m, 'emq_http_requests_total', { status: '200' });
      assert.ok(requests(now) - requests(before) >= RUNS, 'emq_http_requests_total moved');
      // A reader past its burst (the default 30 a host): each 429 counted once, across the workers.
      const flood = await Promise.all(
        Array.from({ length: 45 }, () =>
          ask(`${service.url}/api/experiments/keys`, { body: {}, from: '127.0.8.99' }),
        ),
      );
      const limited = flood.filter((a) => a.status === 429).length;
      assert.ok(limited >= 10, `${limited} of 45 told 429`);
      const afterFlood = await metrics(service);
      const refused = (m: typeof now) => sampleSum(m, 'emq_rate_limited_total');
      assert.equal(refused(afterFlood) - refused(now), limited, 'emq_rate_limited_total counts each 429');
    });

    if (workers === 1)
      it('readiness is 503 while the standalone Valkey is stopped, and 200 again once it runs', async () => {
        const pid = valkey!.standalone.process.pid!;
        process.kill(pid, 'SIGSTOP');
        try {
          let ready = await ask(`${service.url}/readyz`);
          for (let i = 0; ready.status !== 503 && i < 40; i += 1) {
            await new Promise((r) => setTimeout(r, 250));
            ready = await ask(`${service.url}/readyz`);
          }
          assert.equal(ready.status, 503, ready.body);
          assert.equal(JSON.parse(ready.body).why, 'the sandbox is down');
          const status = await ask(`${service.url}/api/sandbox`);
          assert.equal(status.status, 503, 'GET /api/sandbox is 503 when down');
          assert.equal(JSON.parse(status.body).sandbox, 'down');
          assert.equal((await ask(`${service.url}/livez`)).status, 200, 'alive all the same');
        } finally {
          process.kill(pid, 'SIGCONT');
        }
        let ready = await ask(`${service.url}/readyz`);
        for (let i = 0; ready.status !== 200 && i < 60; i += 1) {
          await new Promise((r) => setTimeout(r, 250));
          ready = await ask(`${service.url}/readyz`);
        }
        assert.equal(ready.status, 200, ready.body);
      });

    it('drains on SIGTERM: not ready at once, no new connection, every run in flight answered 200, then exits 0', async (t) => {
      const kinds = everyKind();
      // A run of every kind in flight: its request taken, its body half sent (one connection each, which
      // the primary of WORKERS=2 deals round the workers, so that every worker has some).
      const held = kinds.map(({ name, body }) => halfSent(`${service.url}/api/experiments/${name}`, body));
      // An idle kept-alive connection, to ask readiness on once the port takes no new one.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      await ask(`${service.url}/livez`, { agent });
      // The long runs, under way before the signal: a 20,000-job reshard of each mode, each reader its own.
      const reshards = [
        ask(`${service.url}/api/experiments/reshard`, {
          body: { queue: 'drain-keys', mode: 'keys', size: 20_000 },
          from: '127.0.9.1',
        }),
        ...(atomicReady
          ? [
              ask(`${service.url}/api/experiments/reshard`, {
                body: { queue: 'drain-atomic', mode: 'atomic', size: 20_000 },
                from: '127.0.9.2',
              }),
            ]
          : []),
      ];
      if (!atomicReady) t.diagnostic('Valkey 9.1 is not built here: the atomic reshard is left out');
      await new Promise((r) => setTimeout(r, 700));
      const signalled = performance.now();
      service.child.kill('SIGTERM');
      // No new connection is taken (every worker has closed its listener) …
      let closed = await refused(service.url);
      for (let i = 0; !closed && i < 40; i += 1) {
        await new Promise((r) => setTimeout(r, 25));
        closed = await refused(service.url);
      }
      assert.ok(closed, 'a new connection is refused once draining');
      // … readiness says so on a connection already open, and closes it …
      const ready = await ask(`${service.url}/readyz`, { agent });
      assert.equal(ready.reused, true);
      assert.equal(ready.status, 503);
      assert.deepEqual(JSON.parse(ready.body), { ready: false, why: 'draining' });
      assert.equal(ready.headers.connection, 'close');
      agent.destroy();
      // … and every run in flight is served to its answer: the held ones' bodies end now.
      const late = held.map((run) => run.finish());
      const answers = await Promise.all([...reshards, ...late]);
      const names = [
        ...reshards.map((_, i) => (i ? 'reshard atomic' : 'reshard keys')),
        ...kinds.map((k) => k.name),
      ];
      const statuses = answers.map(
        (a, i) => `${names[i]} ${a.status}${a.status === 200 ? '' : ' ' + a.body}`,
      );
      assert.deepEqual(
        statuses,
        names.map((n) => `${n} 200`),
        'every run answered 200, none cut',
      );
      for (const [i, answer] of answers.slice(0, reshards.length).entries())
        assert.equal(JSON.parse(answer.body).result.jobCount, 20_000, `${names[i]}: the whole queue moved`);
      const code = await service.exited;
      t.diagnostic(`exited ${code} ${Math.round(performance.now() - signalled)} ms after SIGTERM`);
      assert.equal(code, 0, service.output());
      assert.match(service.output(), /drain: every (request answered|worker ended)/);
    });
  });
}
