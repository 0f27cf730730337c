// The reshard experiment's two modes through the API and in Chromium, on the built site: mode atomic
// runs on the site's own Valkey 9.1 cluster (started on the first atomic run) and answers in the keys
// mode's shape — probes served by the source, then MOVED — and the page shows the two modes' answers
// side by side. A second site on the same sandbox, whose Valkey 9.1 build folder does not exist, answers
// mode atomic with a plain 503, says so in GET /api/sandbox and on the page, and serves everything else.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { startSite, type Site } from '../../scripts/site.ts';
import { useExplorer } from '../support/explorer.ts';
import { atomicUp } from '../support/sandbox-up.ts';
import { openPage, useBrowser, reachExplorer } from '../support/site.ts';
import { assertPhaseCounts, ATOMIC_PHASES } from '../support/migration-timeline.ts';
import { boundedTeardown } from '../support/teardown.ts';
import { valkey9ForTests } from '../support/valkey9.ts';

const { build, skip } = await valkey9ForTests();
// The site starts its Valkey 9.1 cluster when it starts, as `npm start` does (a run asked for before the
// cluster is up is a 503 VALKEY9_STARTING).
const explorer = useExplorer({ EXPLORER_BURST: '100000', EXPLORER_RATE: '100000', VALKEY9_AT_START: '1' });
const chromium = useBrowser();
const HASHTAG = '/protocol/the-owned-keyspace/hashtag-and-slot/';
const MISSING = join(tmpdir(), 'emq-no-valkey9-here');

async function post(site: Site, body: unknown) {
  const response = await fetch(`${site.url}/api/experiments/reshard`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('mode atomic on Valkey 9.1', { skip }, () => {
  before(() => atomicUp(explorer.site.url));

  it('answers in the keys mode’s shape: the server that ran it, probes served then MOVED', async () => {
    const { status, body } = await explorer.post('reshard', { queue: 'orders', mode: 'atomic' });
    assert.equal(status, 200, JSON.stringify(body));
    const r = body.result;
    assert.equal(r.mode, 'atomic');
    assert.equal(r.server, build!.version);
    assert.deepEqual(
      r.phases.map((phase: { name: string }) => phase.name),
      ATOMIC_PHASES,
    );
    assert.ok(r.phases[1].probes.length > 0, 'the moving phase has probes');
    for (const probe of r.phases[1].probes) {
      assert.ok(probe.served >= 1, probe.label);
      assert.deepEqual(probe.reply, { error: `MOVED 105 ${r.target}` });
    }
    assert.equal(r.atomic.keys.together, true);
    // every phase's counts: the queue on the source, then all of it on the target, then back
    assertPhaseCounts(r, 1000);
    assert.equal(r.phases[0].keysByNode[r.source], r.atomic.keys.before);
    assert.equal(r.phases[2].keysByNode[r.target], r.atomic.keys.after);
    const moving = r.phases[1].repliesByNode[r.source];
    assert.ok(moving.served + moving.refused >= r.phases[1].probes.length, JSON.stringify(moving));
    assert.equal(r.phases[1].repliesByNode[r.source].redirected, r.phases[1].probes.length);
    assert.equal(r.clean, true);
    assert.equal(r.leftBehind, 0);
    const status2 = await (await fetch(`${explorer.site.url}/api/sandbox`)).json();
    assert.equal(status2.atomic.state, 'up');
    assert.equal(status2.atomic.version, build!.version);
  });

  it('shows both modes, one above the other, in Chromium', async () => {
    const page = await openPage(chromium.browser, explorer.site.url + HASHTAG, { width: 1280 });
    await reachExplorer(page, '[data-sandbox="up"]');
    const section = page.locator('[data-experiment="route"]');
    await section.getByRole('button', { name: 'Move it atomically (Valkey 9.1)' }).click();
    const atomic = section.locator('[data-reshard-mode="atomic"]');
    await atomic.locator('[data-stepper]').waitFor({ timeout: 30_000 });
    // Every phase, as a list, opens on demand: the moving phase's probes served (or refused) N× then MOVED.
    await atomic.locator('[data-reshard-all] summary').first().click();
    assert.match(await atomic.locator('[data-reshard="summary"]').innerText(), /CLUSTER MIGRATESLOTS/);
    const moving = atomic.locator('[data-reshard-all] [data-phase="moving"]');
    assert.equal(await moving.count(), 1);
    for (const probe of await moving.locator('[data-probe]').all()) {
      assert.match(await probe.innerText(), /(served|refused) \d+×/);
      assert.match(String(await probe.locator('[data-reply]').textContent()), /MOVED 105 127\.0\.0\.1:\d+$/);
    }
    assert.match(await atomic.locator('[data-reshard="states"]').innerText(), /EXPORT[\s\S]*success/);

    await section.getByRole('button', { name: 'Move its slot, and back' }).click();
    const keys = section.locator('[data-reshard-mode="keys"]');
    await keys.locator('[data-stepper]').waitFor({ timeout: 30_000 });
    await keys.locator('[data-reshard-all] summary').first().click();
    assert.match(await keys.locator('[data-reshard-all]').innerText(), /TRYAGAIN/);
    // The atomic answer stays beside it, each at the explorer's full width.
    assert.equal(await atomic.locator('[data-reshard-all] [data-phase="moving"]').count(), 1);
    const [upper, lower] = await Promise.all([keys.boundingBox(), atomic.boundingBox()]);
    assert.ok(upper && lower && Math.abs(upper.width - lower.width) < 2, 'both modes at one width');
    await page.close();
  });
});

describe('mode atomic without Valkey 9.1', () => {
  let site: Site | undefined;
  before(async () => {
    site = await startSite({
      VALKEY_URL: explorer.sandbox.standalone.url,
      VALKEY_CLUSTER_URL: explorer.sandbox.cluster!.url,
      VALKEY9_HOME: MISSING,
      EXPLORER_BURST: '100000',
      EXPLORER_RATE: '100000',
    });
  });
  after(() => boundedTeardown(async () => site?.close()));

  it('answers 503 VALKEY9_UNAVAILABLE saying why, and GET /api/sandbox says so', async () => {
    const { status, body } = await post(site!, { queue: 'orders', mode: 'atomic' });
    assert.equal(status, 503);
    // A refusal is problem details (RFC 9457), its code and text from the catalogue's row.
    const detail = `Valkey 9.1 is not available: it is not built (no ${MISSING}; scripts/valkey9.sh builds it)`;
    const problem = body as { status: number; code: string; detail: string; error: unknown };
    assert.equal(problem.status, 503);
    assert.equal(problem.code, 'VALKEY9_UNAVAILABLE');
    assert.equal(problem.detail, detail);
    assert.deepEqual(problem.error, { code: 'VALKEY9_UNAVAILABLE', message: detail });
    const sandbox = await (await fetch(`${site!.url}/api/sandbox`)).json();
    assert.equal(sandbox.sandbox, 'up');
    assert.equal(sandbox.atomic.state, 'absent');
  });

  it('says so plainly on the page, where everything else still runs', async () => {
    const page = await openPage(chromium.browser, site!.url + HASHTAG, { width: 360 });
    await reachExplorer(page, '[data-sandbox="up"]');
    const section = page.locator('[data-experiment="route"]');
    await section.getByRole('button', { name: 'Move it atomically (Valkey 9.1)' }).click();
    const atomic = section.locator('[data-reshard-mode="atomic"]');
    await atomic.getByText(/Valkey 9\.1 is not available: it is not built/).waitFor();
    await section.getByRole('button', { name: 'Route it on the cluster' }).click();
    await section.locator('[data-route="native"]').waitFor({ timeout: 30_000 });
    await page.close();
  });
});
