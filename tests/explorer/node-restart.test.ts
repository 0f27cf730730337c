// A node SIGKILLed under load is back in service in seconds: the sandbox as a site starts it (every node
// with the explorer's account on its command line, the password handed down as WORKERS=n hands it to its
// workers), a runtime on it, runs going on while the standalone and then a cluster node are killed.
// Runs answer 503 while the node is down and 200 again within 10 s; the status the island reads says
// down while they fail and up only when they are served; and no run connection is ever left the admin.
// With WORKERS=2, a worker started while a cluster node is frozen serves on and starts its explorer once
// the node answers (it used to end, dropping the connections it had accepted, and be started again).

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { classify } from '../../server/api/failures.ts';
import { EXPERIMENTS, type Experiment } from '../../server/api/registry.ts';
import { EXPERIMENT_TABLE } from '../../server/contract/experiment-table.ts';
import { grantOf } from '../../server/explorer/grants.ts';
import {
  explorerPasswordFor,
  explorerRuntime,
  siteSandboxOptions,
  type ExplorerRuntime,
} from '../../server/explorer/runtime.ts';
import { scriptFor } from '../../server/executors/scripts.ts';
import { TRANSITIONS, type TransitionName } from '../../server/contract/transitions.ts';
import { startSandbox, type Sandbox } from '../../server/sandbox/sandbox.ts';
import { startSiteWithOwnSandbox, type Site } from '../../scripts/site.ts';
import { serverPid } from '../support/sandbox.ts';
import { sandboxUp } from '../support/sandbox-up.ts';
import { siteServers } from '../support/site-servers.ts';
import { requestFrom } from '../support/from-address.ts';
import { workersOf } from '../support/processes.ts';
import { until } from '../support/until.ts';
import { START_BUDGET_MS } from '../../server/settings/bounds.ts';
import { boundedTeardown } from '../support/teardown.ts';

const BACK_WITHIN_MS = 10_000;
let sandbox: Sandbox;
let runtime: ExplorerRuntime;

before(async () => {
  const password = explorerPasswordFor({});
  sandbox = await startSandbox(siteSandboxOptions(password));
  Object.assign(process.env, {
    VALKEY_URL: sandbox.standalone.url,
    VALKEY_CLUSTER_URL: sandbox.cluster!.url,
  });
  runtime = await explorerRuntime();
});
after(() =>
  boundedTeardown(async () => {
    await runtime?.close();
    await sandbox?.stop();
  }),
);

let queues = 0;
/** One run of `name` as the API runs it: 'ok', or the failure's status and code. */
async function run(name: 'keys' | 'route'): Promise<string> {
  const experiment: Experiment = EXPERIMENTS[name];
  const input = experiment.parse({ ...EXPERIMENT_TABLE[name].example, queue: `restart-${(queues += 1)}` });
  try {
    await experiment.run(grantOf(runtime, experiment.grant), input);
    return 'ok';
  } catch (error) {
    const { status, code } = classify(error);
    return `${status} ${code}`;
  }
}

interface Sample {
  at: number;
  outcome: string;
  status: boolean;
}

/**
 * Kills `pid`, then makes four runs at a time (`attempt`) and reads the status (`isUp`), until runs have
 * been served for `steadyMs` in a row; answers when they were served again for good (0 if never), and
 * every sample.
 */
async function killUnderLoad(
  pid: number,
  attempt: () => Promise<string>,
  isUp: () => Promise<boolean>,
  steadyMs = 1000,
) {
  const killedAt = Date.now();
  process.kill(pid, 'SIGKILL');
  const samples: Sample[] = [];
  let servedSince = 0;
  while (Date.now() - killedAt < BACK_WITHIN_MS + 5000) {
    const status = await isUp();
    const outcomes = await Promise.all([attempt(), attempt(), attempt(), attempt()]);
    const at = Date.now() - killedAt;
    for (const outcome of outcomes) samples.push({ at, outcome, status });
    if (outcomes.every((outcome) => outcome === 'ok')) {
      servedSince ||= at;
      if (at - servedSince > steadyMs) break;
    } else servedSince = 0;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { samples, backAt: servedSince };
}

/** No connection on the standalone node is the admin outside database 0 (where only leases live). */
async function adminsOutsideDb0(): Promise<string[]> {
  const admin = new Valkey(sandbox.standalone.url);
  const list = String(await admin.call('CLIENT', 'LIST'));
  admin.disconnect();
  return list.split('\n').filter((line) => / user=admin /.test(line) && !/ db=0 /.test(line));
}

function assertTruthful(samples: Sample[], backAt: number): void {
  for (const { outcome } of samples) assert.match(outcome, /^(ok|503 )/, 'a 503 while down, never a 500');
  // Truthful: whenever the status said up, the runs right after it were served.
  const upButFailing = samples.filter((sample) => sample.status && sample.outcome !== 'ok');
  assert.deepEqual(upButFailing, [], 'never up while runs fail');
  assert.ok(backAt > 0 && backAt < BACK_WITHIN_MS, `served again after ${backAt} ms`);
}

describe('a runtime handed out is warm', () => {
  it('every keyspace connection open as the explorer, every script loaded on every node', async () => {
    const admin = new Valkey(sandbox.standalone.url);
    const explorers = String(await admin.call('CLIENT', 'LIST'))
      .split('\n')
      .filter((line) => / user=explorer /.test(line) && !/ db=0 /.test(line));
    assert.equal(explorers.length, runtime.pool.size, 'one open connection per keyspace');
    const shas = (Object.keys(TRANSITIONS) as TransitionName[]).map((name) => scriptFor(name).sha);
    const nodes = [admin, ...sandbox.cluster!.url.split(',').map((url) => new Valkey(url))];
    for (const node of nodes) {
      const loaded = (await node.call('SCRIPT', 'EXISTS', ...shas)) as number[];
      assert.ok(
        loaded.every((one) => one === 1),
        `scripts on ${node.options.port}: ${loaded}`,
      );
      node.disconnect();
    }
  });
});

describe('a node SIGKILLed under load', () => {
  it('the standalone: runs back within 10 s, status truthful, no run connection left the admin', async () => {
    assert.equal(await run('keys'), 'ok');
    const port = Number(new URL(sandbox.standalone.url).port);
    const { samples, backAt } = await killUnderLoad(
      serverPid(port),
      () => run('keys'),
      () => runtime.health(),
    );
    assertTruthful(samples, backAt);
    assert.ok(
      samples.some((sample) => sample.outcome !== 'ok' && !sample.status),
      'runs failed while it was down, and the status said so',
    );
    console.log(`# standalone: served again ${backAt} ms after the kill`);
    assert.deepEqual(await adminsOutsideDb0(), []);
    const admin = new Valkey(sandbox.standalone.url);
    const explorers = String(await admin.call('CLIENT', 'LIST'))
      .split('\n')
      .filter((line) => / user=explorer /.test(line));
    admin.disconnect();
    assert.ok(explorers.length > 0, 'the run connections are the explorer');
  });

  it('a cluster node: runs back within 10 s, status truthful', async () => {
    assert.equal(await run('route'), 'ok');
    const victim = sandbox.cluster!.nodes[1]!;
    const { samples, backAt } = await killUnderLoad(
      serverPid(victim.port),
      () => run('route'),
      () => runtime.health(),
    );
    assertTruthful(samples, backAt);
    // Runs on the cluster mostly wait through the restart (the cluster client retries) rather than fail.
    const failed = samples.filter((sample) => sample.outcome !== 'ok').length;
    console.log(
      `# cluster node: ${failed} of ${samples.length} runs failed; served again ${backAt} ms after the kill`,
    );
  });
});

describe('WORKERS=2: the primary supervises the sandbox, two workers serve', () => {
  let site: Site;
  before(async () => {
    site = await startSiteWithOwnSandbox({
      WORKERS: '2',
      EXPLORER_BURST: '100000',
      EXPLORER_RATE: '100000',
    });
  });
  after(() => boundedTeardown(() => site?.close()));

  async function post(): Promise<string> {
    const response = await fetch(`${site.url}/api/experiments/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ queue: `workers-${(queues += 1)}` }),
    });
    const body = (await response.json()) as { code?: string };
    return response.status === 200 ? 'ok' : `${response.status} ${body.code}`;
  }

  async function status(): Promise<boolean> {
    const answer = (await (await fetch(`${site.url}/api/sandbox`)).json()) as { sandbox: string };
    return answer.sandbox === 'up';
  }

  it('the standalone SIGKILLed under load: runs back within 10 s on both workers', async () => {
    await sandboxUp(site.url, 20_000);
    assert.deepEqual(await Promise.all([post(), post(), post(), post()]), ['ok', 'ok', 'ok', 'ok']);
    const port = standalonePortOf(site.pid);
    const { samples, backAt: servedSince } = await killUnderLoad(
      serverPid(port, site.pid),
      post,
      status,
      1500,
    );
    for (const { outcome } of samples) assert.match(outcome, /^(ok|503 )/, 'a 503 while down, never a 500');
    assert.ok(
      samples.some((sample) => sample.outcome !== 'ok' && !sample.status),
      'runs failed while it was down, and the status said so',
    );
    assert.ok(servedSince > 0 && servedSince < BACK_WITHIN_MS, `served again after ${servedSince} ms`);
    // Two workers answer these requests; one may see the server back a moment before the other.
    const upButFailing = samples.filter((sample) => sample.status && sample.outcome !== 'ok').length;
    console.log(
      `# WORKERS=2: served again ${servedSince} ms after the kill; ${upButFailing} of ${samples.length} runs failed while a worker said up`,
    );
  });

  /** GET `path` on a connection of its own (so either worker may take it): '<path> <status>', or what failed. */
  const answerOf = (path: string): Promise<string> =>
    requestFrom('127.0.0.1', `${site.url}${path}`).then(
      (answer) => `${path} ${answer.status}`,
      (error: NodeJS.ErrnoException) => `${path} ${error.code ?? error.message}`,
    );

  it('a worker started while a cluster node is frozen serves on, and runs once the node answers', async () => {
    await sandboxUp(site.url, 20_000);
    const node = siteServers(site.pid).find((server) => server.version === '8' && server.cluster)!;
    const first = workersOf(site.pid);
    const victim = first[0]!;
    const logFrom = site.output().length;
    const answers: string[] = [];
    let replacement = 0;
    process.kill(node.pid, 'SIGSTOP');
    try {
      process.kill(victim, 'SIGKILL');
      replacement = await until(
        'the killed worker replaced',
        () => {
          const now = workersOf(site.pid);
          return now.length === 2 && now.find((pid) => !first.includes(pid));
        },
        30_000,
        100,
      );
      // Past the whole of a start's budget: the replacement's first start fails while the node is frozen.
      const end = Date.now() + START_BUDGET_MS + 3000;
      while (Date.now() < end) {
        answers.push(...(await Promise.all([answerOf('/'), answerOf('/'), answerOf('/api/sandbox')])));
        await sleep(200);
      }
      assert.ok(workersOf(site.pid).includes(replacement), 'the replacement still runs');
    } finally {
      process.kill(node.pid, 'SIGCONT');
    }
    const log = () => site.output().slice(logFrom);
    assert.match(
      log(),
      new RegExp(`worker ${replacement}: the explorer cannot start yet \\(.+\\); trying again`),
    );
    // every request answered (no connection dropped): pages 200, the status 503 while a node is frozen
    assert.deepEqual([...new Set(answers)].sort(), ['/ 200', '/api/sandbox 503']);
    await until(
      `worker ${replacement} serving runs`,
      () => log().includes(`worker ${replacement}: serving runs`),
      60_000,
      200,
    );
    assert.deepEqual(
      log().match(/worker \d+ ended/g),
      [`worker ${victim} ended`],
      'no worker ended but the one killed',
    );
    await until(
      'runs served again',
      async () => (await Promise.all([post(), post(), post(), post()])).every((o) => o === 'ok'),
      30_000,
      250,
    );
  });
});

/** The port of the standalone node the site's primary started (in its process tree). */
function standalonePortOf(primary: number): number {
  const standalone = siteServers(primary).find((server) => server.version === '8' && !server.cluster);
  if (!standalone) throw new Error(`no standalone valkey-server in the process tree of ${primary}`);
  return standalone.port;
}
