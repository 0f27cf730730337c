// The reshard experiment over HTTP on the built site, against a three-node cluster this file owns: the
// queue's slot migrates phase by phase (IMPORTING, MIGRATING, one key at a time, NODE on every node) and
// every probe's reply is held to PROTOCOL.md §4's table — a key still on the source served, a moved key
// ASK from the migrating owner only, MOVED from the target without ASKING and from any node that does
// not serve the slot, the claim (which declares the row base, never a key) TRYAGAIN on the target after
// ASKING and on the source while it holds some of its keys (ASK once it holds none), the module reached
// only once routing lets a call through. After the flip the claim is served by the new
// owner; the cluster client's claim, sent mid-way, retried and was served there. Other readers' runs
// go on meanwhile and stay right; afterwards every node agrees, nothing is open, no key is left.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import {
  replyKind,
  type MigrationPhase,
  type MigrationProbe,
  type MigrationResult,
} from '../../server/contract/experiments/migration.ts';
import { checkCluster } from '../../server/sandbox/cluster-check.ts';
import { SLOT_RANGES } from '../../server/contract/slot-ranges.ts';
import { readShards } from '../../server/sandbox/cluster-topology.ts';
import { useExplorer } from '../support/explorer.ts';
import { requestFrom } from '../support/from-address.ts';
import { assertPhaseCounts, assertTimeline, KEYS_MODE_PHASES } from '../support/migration-timeline.ts';

const explorer = useExplorer({ EXPLORER_BURST: '1000', EXPLORER_RATE: '1000' });
const TRYAGAIN = { error: 'TRYAGAIN Multiple keys request during rehashing of slot' };
const EMQWIRE = { error: 'EMQWIRE expected a standalone server but cluster mode is enabled' };

function probeOf(phase: MigrationPhase, label: string): MigrationProbe {
  const found = phase.probes.find((p) => p.label === label);
  assert.ok(found, `phase ${phase.name} has a probe "${label}"`);
  return found;
}

async function assertClusterClean() {
  const nodes = explorer.sandbox.cluster!.url.split(',').map((url) => new Valkey(url));
  try {
    const byAddress = new Map(
      explorer.sandbox.cluster!.seeds.map(({ host, port }, i) => [`${host}:${port}`, nodes[i]!]),
    );
    const check = await checkCluster((address) => byAddress.get(address)!, [...byAddress.keys()]);
    assert.deepEqual(check.problems, []);
    assert.deepEqual(
      (await readShards(nodes[1]!)).map((shard) => shard.slots),
      SLOT_RANGES.map(([a, b]) => [[a, b]]),
      'the slot is back where it was',
    );
  } finally {
    for (const node of nodes) node.disconnect();
  }
}

/** A row's HGETALL reply as its fields. */
function rowFields(reply: unknown): Record<string, string> {
  assert.ok(Array.isArray(reply), JSON.stringify(reply));
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = String(reply[i + 1]);
  return fields;
}

/** The head of the pending set (ZRANGE 0 2): three job ids. */
function assertHead(reply: unknown) {
  assert.ok(Array.isArray(reply) && reply.length === 3, JSON.stringify(reply));
  for (const id of reply) assert.match(String(id), /^JOB/);
}

/**
 * The worker against the server's own commands: once the source is MIGRATING its claim meets TRYAGAIN
 * (and the redirections between), and nothing is served until the first SETSLOT … NODE; then the new
 * owner serves it. iovalkey's defaults, which it reports, did not give up on a move of this size.
 */
function holdWorker(r: MigrationResult, size: number) {
  const worker = r.worker;
  assert.deepEqual(Object.keys(worker.settings).sort(), [
    'maxRedirections',
    'retryDelayOnClusterDown',
    'retryDelayOnFailover',
    'retryDelayOnMoved',
    'retryDelayOnTryAgain',
  ]);
  assert.equal(worker.settings.maxRedirections, 16);
  const migrating = r.phases.find((p) => p.name === 'migrating')!.steps[0]!;
  const nodes = r.phases.flatMap((p) => p.steps).filter((s) => s.command[3] === 'NODE');
  const firstNode = nodes[0]!.atMs;
  const lines = worker.claims.map((c) => `${c.atMs} ${c.node} ${JSON.stringify(c.reply)}`).join('\n');
  const retries = worker.claims.filter((c) => replyKind(c.reply) === 'retry');
  assert.ok(retries.length >= 1, `a claim met TRYAGAIN:\n${lines}`);
  // The client follows MOVED and ASK and retries TRYAGAIN, on whichever node it is sent to; every
  // TRYAGAIN comes once the source is MIGRATING (the claim's row base is on neither side).
  for (const claim of retries) {
    assert.deepEqual(claim.reply, TRYAGAIN, lines);
    assert.ok(claim.atMs >= migrating.atMs, `TRYAGAIN while MIGRATING:\n${lines}`);
  }
  // From its first TRYAGAIN, nothing was served until SETSLOT … NODE; then the new owner served it.
  const from = retries[0]!.atMs;
  const served = worker.claims.filter((c) => c.atMs > from && replyKind(c.reply) === 'served');
  assert.ok(served.length >= 1, lines);
  assert.ok(served[0]!.atMs > firstNode, `served only after SETSLOT … NODE (${firstNode} ms):\n${lines}`);
  assert.equal(served[0]!.node, r.target, lines);
  // iovalkey's 16 redirections, 100 ms apart, outlast a move of 1,000 jobs; a longer one may not.
  if (size === 1000) assert.equal(worker.gaveUp, false, lines);
  if (worker.gaveUp)
    assert.ok(
      worker.claims.filter((c) => replyKind(c.reply) !== 'served').length >= 16,
      `given up after its redirections:\n${lines}`,
    );
  for (let i = 1; i < worker.claims.length; i += 1)
    assert.ok(worker.claims[i]!.atMs >= worker.claims[i - 1]!.atMs, lines);
  assert.ok(worker.longestWaitMs > 0 && worker.longestWaitMs <= r.moveMs, `${worker.longestWaitMs}`);
}

function holdToTheTable(r: MigrationResult, size = 1000) {
  const { source, target, slot } = r;
  const phase = (name: string) => r.phases.find((p) => p.name === name)!;
  assert.deepEqual(
    r.phases.map((p) => p.name),
    KEYS_MODE_PHASES,
  );
  assert.equal(r.mode, 'keys');
  assertTimeline(r);
  assertPhaseCounts(r, size);
  holdWorker(r, size);
  assert.equal(r.jobCount, size);
  assert.match(r.server, /^\d+\.\d+\.\d+$/);
  const bystander = r.nodes.find((n) => n.address !== source && n.address !== target)!.address;
  const moved = `MOVED ${slot} ${source}`;

  // Before: the owner serves, another node redirects, the owner's module answers EMQWIRE.
  const stable = phase('stable');
  assert.equal(stable.owner, source);
  assert.deepEqual(probeOf(stable, 'the owner serves the queue').reply, r.jobs);
  assert.deepEqual(probeOf(stable, 'a node that does not own the slot redirects').reply, { error: moved });
  assert.deepEqual(probeOf(stable, 'the module, reached on the owner').reply, EMQWIRE);

  // IMPORTING alone changes nothing for a client that does not say ASKING.
  const importing = phase('importing');
  assert.deepEqual(
    importing.steps.map((s) => s.command.slice(0, 4)),
    [['CLUSTER', 'SETSLOT', String(slot), 'IMPORTING']],
  );
  assert.equal(importing.steps[0]!.node, target);
  assert.deepEqual(probeOf(importing, 'the importing node, without ASKING').reply, { error: moved });

  // MIGRATING, nothing moved: a key still there is served; the claim meets TRYAGAIN (its row base is missing).
  const migrating = phase('migrating');
  assert.equal(migrating.steps[0]!.node, source);
  assertHead(probeOf(migrating, 'a key still on the owner is served').reply);
  assert.deepEqual(
    probeOf(migrating, 'the scripted claim (declares the row base, never a key)').reply,
    TRYAGAIN,
  );

  // Split: one row on the target, the rest on the source.
  const split = phase('split');
  const row = `emq:{${r.queue}}:job:${r.jobs[0]}`;
  assert.deepEqual(split.keys.target, [row]);
  const rows = r.jobs.map((id) => `emq:{${r.queue}}:job:${id}`);
  for (const key of [`emq:{${r.queue}}:pending`, rows[1]!, rows[2]!])
    assert.ok(split.keys.source.includes(key), `${key} is still on the source`);
  assert.ok(!split.keys.source.includes(row));
  assert.deepEqual(split.open, [
    { node: source, state: 'migrating' },
    { node: target, state: 'importing' },
  ]);
  const ask = probeOf(split, 'a moved key, on the owner');
  assert.equal(ask.node, source);
  assert.deepEqual(ask.reply, { error: `ASK ${slot} ${target}` }, 'ASK comes from the migrating owner');
  assert.deepEqual(probeOf(split, 'the moved key on the target, without ASKING').reply, { error: moved });
  const served = probeOf(split, 'the moved key on the target, after ASKING');
  assert.equal(served.asking, true);
  // The worker may have claimed it before the source was MIGRATING: pending or active, the same job.
  assert.equal(rowFields(served.reply).payload, '{"job":1}');
  assert.equal(rowFields(probeOf(split, 'a key not yet moved').reply).payload, '{"job":2}');
  assert.deepEqual(probeOf(split, 'the scripted claim on the owner').reply, TRYAGAIN);
  assert.deepEqual(probeOf(split, 'the scripted claim on the target, after ASKING').reply, TRYAGAIN);
  assert.deepEqual(probeOf(split, 'an enqueue (a new row, and the pending set)').reply, TRYAGAIN);
  // Routing answers before the module: the module never ran (no EMQWIRE) on either side.
  assert.deepEqual(probeOf(split, 'the module’s enqueue on the owner').reply, TRYAGAIN);
  assert.deepEqual(probeOf(split, 'the module’s enqueue on the target, after ASKING').reply, TRYAGAIN);
  const outside = probeOf(split, 'a node outside the move');
  assert.equal(outside.node, bystander);
  assert.deepEqual(
    outside.reply,
    { error: moved },
    'a node that does not serve the slot says MOVED, never ASK',
  );

  // The queue split: one row on the target, counted there; the rest still on the source.
  assert.equal(split.keysByNode[target], 1);
  assert.ok(split.keysByNode[source]! >= size - 1, JSON.stringify(split.keysByNode));

  // Every key moved, the slot not yet flipped: all missing on the source → ASK; TRYAGAIN on the target.
  const all = phase('moved');
  assert.equal(all.keysByNode[source], 0);
  assert.ok(all.keysByNode[target]! >= size, JSON.stringify(all.keysByNode));
  assert.deepEqual(all.keys.source, []);
  for (const key of [`emq:{${r.queue}}:pending`, ...rows]) assert.ok(all.keys.target.includes(key), key);
  assert.deepEqual(probeOf(all, 'the pending set, on the owner').reply, { error: `ASK ${slot} ${target}` });
  assert.deepEqual(probeOf(all, 'on the target, without ASKING').reply, { error: moved });
  assertHead(probeOf(all, 'on the target, after ASKING').reply);
  assert.deepEqual(probeOf(all, 'the scripted claim on the owner').reply, { error: `ASK ${slot} ${target}` });
  assert.deepEqual(probeOf(all, 'the scripted claim on the target, after ASKING').reply, TRYAGAIN);
  // After ASKING the importing target serves a single-key call (the ZRANGE above), and a multi-key call
  // only when all its keys are there: the claim, whose row base never is, gets TRYAGAIN when some of its
  // keys are there (moved) and when none are (split) — as the page's list of phases says (MovePhases).
  assert.ok(probeOf(all, 'on the target, after ASKING').asking);
  assert.ok(probeOf(split, 'the scripted claim on the target, after ASKING').asking);

  // The flip: NODE on every node, the target first; then the claim is served by the new owner.
  const owner = phase('owner');
  const nodeSteps = owner.steps.filter((s) => s.command[3] === 'NODE');
  assert.deepEqual(
    nodeSteps.map((s) => s.node),
    [target, source, bystander],
  );
  for (const step of [...importing.steps, ...migrating.steps, ...nodeSteps]) assert.equal(step.reply, 'OK');
  assert.equal(owner.owner, target);
  assert.deepEqual(owner.open, []);
  const claimed = probeOf(owner, 'the scripted claim on the new owner').reply as string[];
  assert.match(claimed[0]!, /^JOB/, 'the new owner serves the claim');
  assert.deepEqual(probeOf(owner, 'the former owner redirects').reply, { error: `MOVED ${slot} ${target}` });
  assert.deepEqual(probeOf(owner, 'the module, reached on the new owner').reply, EMQWIRE);

  // The cluster client: TRYAGAIN while the slot moved, served at last by the new owner.
  assert.match((r.client.reply as string[])[0]!, /^JOB/);
  const evals = r.client.wire.filter((w) => w.line.startsWith('EVALSHA'));
  assert.deepEqual(evals[0]!.reply, TRYAGAIN);
  assert.equal(evals[0]!.node, source);
  assert.equal(evals.at(-1)!.node, target);
  assert.equal((evals.at(-1)!.reply as string[])[0], (r.client.reply as string[])[0]);

  assert.equal(phase('back').owner, source);
  assert.equal(r.clean, true);
  assert.equal(r.leftBehind, 0);
  const shown = JSON.stringify(r);
  assert.ok(!shown.includes(explorer.sandbox.cluster!.admin!.password), 'no password shown');
  assert.ok(!shown.includes('{sandbox}'), 'the site’s own keys are never shown');
}

describe('reshard', () => {
  it('migrates the queue’s slot phase by phase; every probe answers as PROTOCOL.md §4 says', async () => {
    const { status, body } = await explorer.post('reshard', { queue: 'orders' });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.result.slot, 105);
    holdToTheTable(body.result);
    // the page says of phase moved what the replies above hold, and not that any call is served after ASKING
    const page = await (
      await fetch(`${explorer.site.url}/protocol/the-owned-keyspace/hashtag-and-slot/`)
    ).text();
    const moved = /<li><code>moved<\/code>:([^<]*)<\/li>/.exec(page)?.[1] ?? '';
    assert.match(
      moved,
      /After ASKING the target serves a single-key call, and a multi-key call only when all its keys are there; otherwise it answers TRYAGAIN Multiple keys request during rehashing of slot/,
    );
    assert.doesNotMatch(moved, /serves a call sent after ASKING/);
    await assertClusterClean();
    assert.deepEqual(await explorer.allKeys(), []);
  });

  it('refuses a mode it does not know, naming the allowed ones; keys is the default', async () => {
    const { status, body } = await explorer.post('reshard', { queue: 'orders', mode: 'atomically' });
    assert.equal(status, 400);
    assert.equal(body.code, 'BAD_INPUT');
    assert.equal(body.field, 'mode');
    assert.match(body.detail, /^mode: expected one of keys\b.*, found "atomically"$/);
    assert.equal((await explorer.post('reshard', { queue: 'orders', mode: 7 })).status, 400);
  });

  it('moves the largest offered queue whole, key by key, and refuses a size it does not offer', async () => {
    const { status, body } = await explorer.post('reshard', { queue: 'orders', size: 20_000 });
    assert.equal(status, 200, JSON.stringify(body));
    holdToTheTable(body.result, 20_000);
    console.log(
      `# keys mode, 20,000 jobs: moved in ${body.result.moveMs} ms; the worker waited ${body.result.worker.longestWaitMs} ms; gave up: ${body.result.worker.gaveUp}`,
    );
    await assertClusterClean();
    assert.deepEqual(await explorer.allKeys(), []);
    for (const [size, found] of [
      [20_001, '20001'],
      [999, '999'],
      [0, '0'],
      ['1000', 'a string "1000"'],
      [null, 'null'],
    ] as const) {
      const refused = await explorer.post('reshard', { queue: 'orders', size });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.field, 'size');
      assert.equal(refused.body.detail, `size: expected one of 1000, 20000, found ${found}`);
    }
  });

  it('refuses a queue on the site’s own lock slot, in either mode, and moves its neighbours', async () => {
    for (const mode of ['keys', 'atomic']) {
      const { status, body } = await explorer.post('reshard', { queue: 'sandbox', mode });
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(body.field, 'queue');
      assert.equal(
        body.detail,
        'queue: "sandbox" lives in slot 4748, where the site keeps its own locks; a reshard of that slot would move them mid-run. Any queue whose slot is not 4748 can be moved (e.g. orders)',
      );
    }
    const { status, body } = await explorer.post('reshard', { queue: 'sandboxes' });
    assert.equal(status, 200, JSON.stringify(body));
    assert.notEqual(body.result.slot, 4748);
    assert.ok(!JSON.stringify(body.result).includes('{sandbox}'), 'the site’s own keys are never shown');
    await assertClusterClean();
  });

  it('other readers’ runs stay right while migrations are under way, and migrations take turns', async () => {
    const queues = ['orders', 'emq', 'x', 'fills', 'ça va'];
    const work = [
      // From three readers: one reshard queued or running per reader address (issue 25.2).
      ...['orders', 'x', 'emq'].map((queue, i) =>
        requestFrom(`127.0.0.${71 + i}`, `${explorer.site.url}/api/experiments/reshard`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ queue, mode: 'keys' }),
        }).then((a) => ({ status: a.status, body: JSON.parse(a.body.toString()) })),
      ),
      ...Array.from({ length: 30 }, (_, i) => explorer.post('route', { queue: queues[i % 5] })),
      ...Array.from({ length: 5 }, () => explorer.post('slot', { queue: 'orders', other: 'fills' })),
    ];
    const results = await Promise.all(work);
    for (const [i, { status, body }] of results.entries()) {
      assert.equal(status, 200, `run ${i}: ${JSON.stringify(body)}`);
      const r = body.result;
      if (i < 3) {
        holdToTheTable(r);
      } else if (i < 33) {
        assert.equal(r.moved.reply, `MOVED ${r.slot} ${r.owner}`);
        assert.equal(r.served.steps[1].reply[0], r.served.jobId, 'the run claimed its own job');
        assert.ok(r.served.keys.every((k: { storedOn: string }) => k.storedOn === r.owner));
        assert.equal(r.native.written, false);
        assert.equal(r.leftBehind, 0);
      } else {
        assert.equal(r.singleQueue.reply, null, 'an empty queue: nothing of a migration’s jobs seen');
        assert.equal(r.mixedQueues.error, "CROSSSLOT Keys in request don't hash to the same slot");
      }
    }
    await assertClusterClean();
    assert.deepEqual(await explorer.allKeys(), []);
  });
});
