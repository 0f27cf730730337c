// No orphans of either Valkey (issue 25.1): the Valkey 9.1 cluster runs by its absolute path in the build
// cache, so its servers are found by what they are, not by how their command line begins. A site killed
// idle, or mid-MIGRATESLOTS, leaves none of its servers of either version running 10 s later; a site of
// WORKERS=2 has one 9.1 cluster, its primary's, and a worker killed mid-migration leaves nothing in
// flight and no key of its run once the next worker is up. Only the servers each site started are
// counted (its process tree, recorded before the kill): other agents run valkey-servers here too.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startSiteWithOwnSandbox, type Site } from '../../scripts/site.ts';
import { requestFrom } from '../support/from-address.ts';
import { alive } from '../support/processes.ts';
import {
  adminClient,
  queueKeysOn,
  siteServers,
  stillRunning,
  unfinishedMigrations,
  type SiteServer,
} from '../support/site-servers.ts';
import { atomicUp, sandboxUp } from '../support/sandbox-up.ts';
import { until } from '../support/until.ts';
import { valkey9ForTests } from '../support/valkey9.ts';

const { skip } = await valkey9ForTests();

/** What a killed site may take to leave nothing: its watchdog looks every second. */
const NOTHING_LEFT_MS = 10_000;

/** One reshard of `queue` in atomic mode, on a connection of its own (so WORKERS=n spreads them). */
/** An atomic reshard; a kill mid-move asks for the larger queue, whose move lasts long enough to catch. */
function atomicReshard(site: Site, queue: string, size = 1_000) {
  return requestFrom('127.0.0.1', `${site.url}/api/experiments/reshard`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ queue, mode: 'atomic', size }),
  });
}

/** The site's servers once all of them are up: four of Valkey 8, three of 9.1. */
async function serversWhenUp(site: Site): Promise<SiteServer[]> {
  return until(
    'the site’s four Valkey 8 and three Valkey 9.1 servers',
    () => {
      const servers = siteServers(site.pid);
      const nine = servers.filter((server) => server.version === '9.1');
      return servers.length - nine.length === 4 && nine.length === 3 && servers;
    },
    60_000,
    200,
  );
}

/** The 9.1 nodes of `servers`, each as the admin. */
function nineNodes(servers: SiteServer[]) {
  return servers.filter((server) => server.version === '9.1').map(adminClient);
}

/** How many 20,000-job reshards a test starts before it gives up catching one mid-move. */
const TRIES_TO_CATCH = 3;

/**
 * Starts 20,000-job atomic reshards of `orders` until one of `nodes` reports a slot migration not
 * finished, and returns while it is in flight. A reshard that answers first (refused, or its move too
 * quick to see) is followed by another; after TRIES_TO_CATCH it fails, quoting every answer and what
 * the nodes last said.
 */
async function catchAMove(site: Site, nodes: ReturnType<typeof nineNodes>): Promise<void> {
  const answers: string[] = [];
  let lastRead = '';
  for (let attempt = 1; attempt <= TRIES_TO_CATCH; attempt += 1) {
    let answered = false;
    void atomicReshard(site, 'orders', 20_000).then(
      (answer) => {
        answered = true;
        answers.push(`${answer.status} ${answer.body.toString().slice(0, 200)}`);
      },
      (error: Error) => {
        answered = true;
        answers.push(error.message);
      },
    );
    const seen = await until(
      'a MIGRATESLOTS in flight, or the reshard’s answer',
      async () => {
        for (const node of nodes) {
          const states = await unfinishedMigrations(node).catch((error: Error) => [
            `error: ${error.message}`,
          ]);
          lastRead = states.join(', ');
          if (states.length > 0 && !lastRead.startsWith('error')) return 'moving';
        }
        return answered && 'answered';
      },
      60_000,
      5,
    );
    if (seen === 'moving') return;
  }
  throw new Error(
    `no MIGRATESLOTS seen in flight in ${TRIES_TO_CATCH} reshards (the nodes last said: ${lastRead || 'none'}); they answered: ${answers.join(' | ')}`,
  );
}

async function nothingLeftOf(servers: SiteServer[]): Promise<void> {
  await until(
    `every server the site started stopped (${servers.map((s) => `${s.version}:${s.port}`).join(', ')})`,
    () => stillRunning(servers).length === 0,
    NOTHING_LEFT_MS,
    200,
  );
}

describe('a site with its Valkey 9.1 cluster', { skip }, () => {
  it('killed idle: none of its servers, of either version, runs 10 s later', async () => {
    const site = await startSiteWithOwnSandbox({ VALKEY9_AT_START: '1' });
    const servers = await serversWhenUp(site).finally(() => process.kill(site.pid, 'SIGKILL'));
    await nothingLeftOf(servers);
  });

  it('killed mid-MIGRATESLOTS: none of its servers runs 10 s later; the next site moves the slot cleanly', async () => {
    const site = await startSiteWithOwnSandbox({ VALKEY9_AT_START: '1' });
    let servers: SiteServer[] = [];
    let nodes: ReturnType<typeof nineNodes> = [];
    try {
      servers = await serversWhenUp(site);
      // Its servers running is not its cluster formed: a reshard asked before is a 503 VALKEY9_STARTING,
      // and no move would ever be in flight to kill.
      await atomicUp(site.url);
      nodes = nineNodes(servers);
      await catchAMove(site, nodes);
    } finally {
      process.kill(site.pid, 'SIGKILL');
      for (const node of nodes) node.disconnect();
    }
    await nothingLeftOf(servers);

    const next = await startSiteWithOwnSandbox({ VALKEY9_AT_START: '1' });
    try {
      await sandboxUp(next.url, 60_000);
      await atomicUp(next.url);
      const answer = await atomicReshard(next, 'orders');
      assert.equal(answer.status, 200, answer.body.toString());
      // Read once its cluster has served a run: the servers it runs now, not those it first started.
      const after = await serversWhenUp(next);
      assert.equal(
        after.filter((server) => servers.some((old) => old.pid === server.pid)).length,
        0,
        'the next site runs servers of its own',
      );
      const fresh = nineNodes(after);
      try {
        for (const node of fresh) {
          assert.deepEqual(await unfinishedMigrations(node), [], 'nothing in flight');
          assert.equal(await queueKeysOn(node), 0, 'no key of the run left');
        }
      } finally {
        for (const node of fresh) node.disconnect();
      }
    } finally {
      await next.close();
    }
  });

  it('WORKERS=2: one 9.1 cluster, the primary’s; a worker killed mid-migration leaves nothing in flight', async () => {
    // VALKEY9_AT_START=0: the cluster starts on the first atomic run, in whichever worker serves it.
    const site = await startSiteWithOwnSandbox({
      WORKERS: '2',
      EXPLORER_BURST: '1000',
      EXPLORER_RATE: '1000',
    });
    let servers: SiteServer[] = [];
    try {
      await sandboxUp(site.url, 60_000);
      // Each on a connection of its own: the two workers take them in turn, so two served in a row are
      // one of each worker's.
      let inRow = 0;
      await until(
        'two atomic reshards served in a row',
        async () => {
          const answer = await atomicReshard(site, `a${inRow}`);
          inRow = answer.status === 200 ? inRow + 1 : 0;
          return inRow >= 2;
        },
        120_000,
        200,
      );
      servers = siteServers(site.pid);
      const nine = servers.filter((server) => server.version === '9.1');
      assert.equal(nine.length, 3, `one Valkey 9.1 cluster for the site: ${nine.length} servers`);
      assert.ok(
        nine.every((server) => server.ppid === site.pid),
        'the primary started it, not a worker',
      );

      // Kill the worker that holds the atomic turn, mid-MIGRATESLOTS (the lock's token names its pid).
      const nodes = nineNodes(servers);
      try {
        await catchAMove(site, nodes);
        let holder = 0;
        for (const node of nodes) {
          // The atomic runs' turn is a line (run-lock.ts): its first ticket is the holder's token.
          const [token] = (await node
            .call('ZRANGE', '{sandbox}:line:reshard-atomic', 0, 0)
            .catch(() => [])) as string[];
          const pid = Number(/:(\d+):[^:]+$/.exec(token ?? '')?.[1]);
          if (pid) holder = pid;
        }
        assert.ok(holder && holder !== site.pid && alive(holder), `a worker holds the turn (${holder})`);
        const ownOfWorker = servers.filter((server) => server.ppid === holder);
        process.kill(holder, 'SIGKILL');
        await nothingLeftOf(ownOfWorker);
        await until('the primary starts another worker', () =>
          /ended \(SIGKILL\); starting another/.test(site.output()),
        );
        await until(
          'nothing in flight and no key of the dead run on the 9.1 cluster',
          async () => {
            for (const node of nodes) {
              if ((await unfinishedMigrations(node)).length > 0 || (await queueKeysOn(node)) > 0)
                return false;
            }
            return true;
          },
          20_000,
          200,
        );
        assert.equal(stillRunning(servers).length, servers.length, 'the site’s servers all still run');
        // The clean-up logs once it has removed the keys: the line may reach us a moment after they go.
        await until('the clean-up says what it removed', () =>
          /atomic: after worker \d+: 127\.0\.0\.1:\d+: removed \d+ queue key/.test(site.output()),
        );
      } finally {
        for (const node of nodes) node.disconnect();
      }
      // And the next atomic run is served.
      const answer = await atomicReshard(site, 'orders');
      assert.equal(answer.status, 200, answer.body.toString());
    } catch (error) {
      console.error(`the site's log:\n${site.output()}`);
      throw error;
    } finally {
      if (alive(site.pid)) process.kill(site.pid, 'SIGKILL');
    }
    await nothingLeftOf(servers);
  });
});
