// The atomic half with WORKERS=2, on real servers (a Valkey 8 cluster, a Valkey 9.1 cluster):
// - one truth in every process: `atomic.state` is read from the Valkey 9.1 servers, the same whichever
//   worker answers — a worker that has run nothing atomic yet, or one just restarted, used to say
//   "starting … starts on first use" while the cluster ran;
// - `degraded` while the Valkey 8 node holding the site's locks (slot 4748) is frozen: every atomic run
//   takes its reader's share there, and with it frozen they failed while the status said "up";
// - a dead worker's clean-up done behind a line of 12 reshards: it takes a turn of its own in the line,
//   however long, and is tried again until done (it was refused once, "12 runs in line", and never
//   tried again, leaving its keys).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSiteWithOwnSandbox, type Site } from '../../scripts/site.ts';
import { freePort } from '../../server/sandbox/free-port.ts';
import { LOCK_SLOT } from '../../server/explorer/atomic-runtime.ts';
import { addressesIn } from '../support/floods.ts';
import { requestFrom } from '../support/from-address.ts';
import { parsePrometheusText } from '../support/prometheus-text.ts';
import { workersOf } from '../support/processes.ts';
import { atomicUp, sandboxUp } from '../support/sandbox-up.ts';
import {
  adminClient,
  ownerOfSlot,
  queueKeysOn,
  siteServers,
  type SiteServer,
} from '../support/site-servers.ts';
import { boundedTeardown } from '../support/teardown.ts';
import { until } from '../support/until.ts';
import { valkey9ForTests } from '../support/valkey9.ts';

const { skip } = await valkey9ForTests();

let site: Site;
let metricsPort: number;
before(async () => {
  if (skip) return;
  metricsPort = await freePort();
  site = await startSiteWithOwnSandbox({
    WORKERS: '2',
    METRICS_PORT: String(metricsPort),
    VALKEY9_AT_START: '1',
    EXPLORER_BURST: '1000',
    EXPLORER_RATE: '1000',
  });
  await sandboxUp(site.url, 60_000);
  await atomicUp(site.url);
});
after(() => boundedTeardown(async () => site?.close()));

/** The atomic runs' line on the Valkey 9.1 cluster (run-lock.ts): tokens `<host>:<pid>:<random>`. */
const LINE = '{sandbox}:line:reshard-atomic';

let next = 0;

/** The atomic states of `count` status checks, `together` at a time, each on a connection of its own. */
async function atomicStates(count: number, together = 4): Promise<string[]> {
  const states: string[] = [];
  for (let i = 0; i < count; i += together) {
    const answers = await Promise.all(
      addressesIn('127.22', together, 200 + (next += together)).map((from) =>
        requestFrom(from, `${site.url}/api/sandbox`),
      ),
    );
    for (const answer of answers) {
      // 503 while the sandbox is down (a node frozen): the same body.
      assert.ok([200, 503].includes(answer.status), `answered ${answer.status}`);
      const body = JSON.parse(answer.body.toString()) as { atomic: { state: string; message: string } };
      states.push(`${body.atomic.state}: ${body.atomic.message}`);
    }
  }
  return states;
}

const workers = () => workersOf(site.pid);

/**
 * Until every worker reads the Valkey 9.1 cluster as up: a worker that has not asked yet connects on its
 * first status, which may say "starting" while it connects (a few round trips; longer on a loaded
 * machine). Before, a worker that had run nothing atomic said "starting … starts on first use" for ever.
 */
async function everyWorkerReadsUp(): Promise<void> {
  let last: string[] = [];
  await until(
    'every worker reading the Valkey 9.1 cluster as up',
    async () => {
      last = await atomicStates(8);
      return last.every((state) => state.startsWith('up:'));
    },
    30_000,
    250,
  ).catch((error) => {
    throw new Error(`${(error as Error).message}; last: ${JSON.stringify(last)}`);
  });
}

describe('the atomic half with WORKERS=2', { skip }, () => {
  it('says the same, read from the servers, in every worker, a restarted one included', async () => {
    await everyWorkerReadsUp();
    const fresh = await atomicStates(16);
    assert.deepEqual(
      fresh.filter((state) => !state.startsWith('up:')),
      [],
      'every status up while the Valkey 9.1 cluster runs',
    );
    const first = workers();
    process.kill(first[0]!, 'SIGKILL');
    const replacement = await until(
      'the killed worker replaced',
      () => workers().length === 2 && workers().find((pid) => !first.includes(pid)),
      30_000,
      100,
    );
    // Its replacement has run nothing atomic. Once its explorer has started (the next test freezes a
    // node, which a start still under way would meet), it serves runs and says so.
    await until(
      `worker ${replacement} serving runs`,
      () => site.output().includes(`worker ${replacement}: serving runs`),
      30_000,
      100,
    );
    await everyWorkerReadsUp();
    const restarted = await atomicStates(16);
    assert.deepEqual(
      restarted.filter((state) => !state.startsWith('up:')),
      [],
      'every status up after a worker restarted',
    );
  });

  it('counts each Valkey 9.1 node in emq_server_up, up, beside the Valkey 8 servers', async () => {
    const answer = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(answer.status, 200);
    const up = parsePrometheusText(await answer.text()).find((f) => f.name === 'emq_server_up')!;
    const nines = siteServers(site.pid).filter((s) => s.version !== '8');
    const atomic = up.metrics.filter((m) => m.labels?.role === 'atomic-cluster');
    assert.deepEqual(
      atomic.map((m) => m.labels?.server).sort(),
      nines.map((s) => `127.0.0.1:${s.port}`).sort(),
      'every Valkey 9.1 node, by its address',
    );
    assert.ok(
      atomic.every((m) => m.value === '1'),
      JSON.stringify(atomic),
    );
    assert.equal(up.metrics.length - atomic.length, 4, 'the standalone and three Valkey 8 cluster nodes');
  });

  it(`says degraded while the Valkey 8 node holding the site's locks (slot ${LOCK_SLOT}) is frozen`, async () => {
    const eights = siteServers(site.pid).filter((s) => s.version === '8' && s.cluster);
    const node = await ownerOfSlot(eights, LOCK_SLOT);
    process.kill(node.pid, 'SIGSTOP');
    try {
      await until(
        'the atomic half degraded',
        async () => (await atomicStates(4)).every((state) => state.startsWith('degraded:')),
        10_000,
        250,
      );
      const states = await atomicStates(8);
      for (const state of states) {
        assert.match(
          state,
          new RegExp(`^degraded: .*slot ${LOCK_SLOT}, 127\\.0\\.0\\.1:${node.port}\\) does not answer`),
        );
      }
    } finally {
      process.kill(node.pid, 'SIGCONT');
    }
    await until(
      'up again',
      async () => (await atomicStates(4)).every((s) => s.startsWith('up:')),
      30_000,
      500,
    );
  });

  it("does a dead worker's clean-up behind a line of 12 reshards, and leaves no queue key", async () => {
    // Twelve readers, a queue each: a run's keys are removed by no other run, only by the clean-up.
    const readers = addressesIn('127.22', 12, 100);
    const reshards = readers.map((from, i) =>
      requestFrom(from, `${site.url}/api/experiments/reshard`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ queue: `line${i + 1}`, mode: 'atomic', size: 20000 }),
      }).then(
        (answer) => String(answer.status),
        (error: NodeJS.ErrnoException) => error.code ?? error.message,
      ),
    );
    // The worker whose run holds the turn (its ticket first in the line, `<host>:<pid>:…`), once that
    // run has begun filling its queue: killed mid-run, with the rest of the line behind it.
    const nines = siteServers(site.pid).filter((s) => s.version === '9.1');
    const holder = await until(
      'a worker’s run holding the turn, its queue filling',
      async () => {
        let pid = 0;
        let keys = 0;
        for (const server of nines) {
          const client = adminClient(server);
          const first = (await client.zrange(LINE, 0, 0).catch(() => [])) as string[];
          if (first[0]) pid = Number(first[0].split(':')[1]);
          keys += await queueKeysOn(client).catch(() => 0);
          client.disconnect();
        }
        return workers().includes(pid) && keys > 0 && pid;
      },
      30_000,
      50,
    );
    process.kill(holder, 'SIGKILL');
    const outcomes = await Promise.all(reshards);
    const done = new RegExp(`atomic: after worker ${holder}: clean-up done`);
    await until('the dead worker’s clean-up done', () => done.test(site.output()), 120_000, 500);
    let left = 0;
    for (const server of nines) {
      const client = adminClient(server);
      left += await queueKeysOn(client);
      client.disconnect();
    }
    const said = site
      .output()
      .split('\n')
      .filter((line) => line.includes(`after worker ${holder}`));
    assert.equal(
      left,
      0,
      `no queue key left on the Valkey 9.1 cluster (reshards: ${outcomes.join(' ')}; ${said.join('; ')})`,
    );
    assert.ok(
      said.some((line) => /removed \d+ queue key/.test(line)),
      `the clean-up removed the dead run's keys: ${said.join('; ')}`,
    );
  });
});
