// A failed atomic run cleans up after its last writer (issue 25.5): each node of the Valkey 9.1 cluster —
// the source, the importing target, the one outside the move — is killed with SIGKILL mid-MIGRATESLOTS.
// The run answers 503 by its deadline, never a 200 for a move that did not happen; once the node is back
// (its supervisor restarts it) and the atomic mode says up again, nothing is in flight and no key of the
// run is left on any node — the probes and the worker's claims had ended before the clean-up deleted —
// and the next atomic reshard is served. One site of this file's own, its servers found in its tree.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import type { Site } from '../../scripts/site.ts';
import { requestFrom } from '../support/from-address.ts';
import { adminClient, queueKeysOn, siteServers, type SiteServer } from '../support/site-servers.ts';
import { atomicUp } from '../support/sandbox-up.ts';
import { until } from '../support/until.ts';
import { siteWithValkey9, valkey9ForTests } from '../support/valkey9.ts';

const { skip } = await valkey9ForTests();

/** A run's deadline (RUN_DEADLINE_MS) and the API's margin after it, with room for a loaded machine. */
const ANSWERED_BY_MS = 16_000 + 3_000;

let site: Site;

function atomicReshard(size: number) {
  return requestFrom('127.0.0.1', `${site.url}/api/experiments/reshard`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ queue: 'orders', mode: 'atomic', size }),
  });
}

/** The site's Valkey 9.1 servers as they run now (a restarted node has a new pid). */
function nineServers(): SiteServer[] {
  return siteServers(site.pid).filter((server) => server.version === '9.1');
}

/** A node's migration jobs not finished, each as its operation (EXPORT, IMPORT). */
async function inFlight(node: Valkey): Promise<string[]> {
  const jobs = (await node.call('CLUSTER', 'GETSLOTMIGRATIONS')) as unknown[][];
  return jobs
    .map((flat) => {
      const fields = new Map<string, string>();
      for (let i = 0; i + 1 < flat.length; i += 2) fields.set(String(flat[i]), String(flat[i + 1]));
      return fields;
    })
    .filter((job) => !['success', 'failed', 'cancelled'].includes(job.get('state') ?? ''))
    .map((job) => job.get('operation') ?? '?');
}

/** With the admin on every 9.1 node: `work`, then every connection closed. */
async function withNodes<T>(work: (nodes: Array<{ server: SiteServer; admin: Valkey }>) => Promise<T>) {
  const nodes = nineServers().map((server) => ({ server, admin: adminClient(server) }));
  try {
    return await work(nodes);
  } finally {
    for (const { admin } of nodes) admin.disconnect();
  }
}

/** Starts a 20,000-job atomic reshard and, once its move is in flight, kills the node in `role`. */
async function killMidMove(role: 'source' | 'target' | 'outside') {
  return withNodes(async (nodes) => {
    const started = Date.now();
    const answer = atomicReshard(20_000);
    const roles = await until(
      'a MIGRATESLOTS in flight',
      async () => {
        const ops = await Promise.all(nodes.map(({ admin }) => inFlight(admin).catch((): string[] => [])));
        return ops.some((o) => o.length > 0) && ops;
      },
      60_000,
      5,
    );
    const at = roles.findIndex((ops) => ops.includes(role === 'source' ? 'EXPORT' : 'IMPORT'));
    const victim =
      role === 'outside'
        ? nodes.find((_, i) => roles[i]!.length === 0)!
        : nodes[at === -1 ? roles.findIndex((ops) => ops.length > 0) : at]!;
    process.kill(victim.server.pid, 'SIGKILL');
    const { status, body } = await answer;
    return { status, body: body.toString(), took: Date.now() - started, killed: victim.server.port };
  });
}

describe('a Valkey 9.1 node killed mid-MIGRATESLOTS', { skip }, () => {
  before(async () => {
    site = await siteWithValkey9();
    await atomicUp(site.url);
  });
  after(() => site?.close());

  for (const role of ['target', 'source', 'outside'] as const) {
    it(`the ${role}: the run fails in time, and once the node is back nothing of it is left`, async () => {
      const run = await killMidMove(role);
      assert.ok(run.took < ANSWERED_BY_MS, `answered by its deadline (${run.took} ms)`);
      if (role !== 'outside') assert.equal(run.status, 503, `a move that failed is a 503: ${run.body}`);
      else assert.ok([200, 503].includes(run.status), `${run.status}: ${run.body}`);
      await until('three 9.1 servers running', () => nineServers().length === 3, 30_000, 200);
      await atomicUp(site.url, 60_000);
      // What is left, node by node, said when the wait runs out. 60 s: on a loaded machine one clean-clone
      // run in four still had something left at 30 s, and the next move, 3 s later, found it all gone.
      let left: string[] = [];
      await until(
        'nothing in flight and no key of the run on any 9.1 node',
        () =>
          withNodes(async (nodes) => {
            left = [];
            for (const { server, admin } of nodes) {
              const [jobs, keys] = [await inFlight(admin), await queueKeysOn(admin)];
              if (jobs.length > 0 || keys > 0)
                left.push(`${server.port}: ${jobs.join('+') || 'no job'}, ${keys} keys`);
            }
            return left.length === 0;
          }).catch(() => false),
        60_000,
        250,
      ).catch((error) => {
        throw new Error(`${(error as Error).message}; left: ${left.join('; ')}`);
      });
      const next = await atomicReshard(1_000);
      assert.equal(next.status, 200, next.body.toString());
    });
  }
});
