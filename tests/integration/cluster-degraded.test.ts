// GET /api/sandbox tells the truth about the cluster's slot map (issue 16.2): with a migration left
// half-done (both sides open, the keys split) it answers `degraded` and names what is open, never `up`;
// the site's watch then finishes the move (in the migration turn, logged, no key lost) and the status is
// `up` again, with a route run on that queue served.
// The API is called in-process (answerApi), against a real three-node cluster this file owns.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ownerOf, readShards } from '../../server/sandbox/cluster-topology.ts';
import { leaveSlotOpen } from '../support/open-slot.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ native: false, standaloneSettings: { databases: '32' } });

type Http = typeof import('../../server/api/api.ts');
let http: Http;
const asked = (method: string, body?: unknown) => ({
  method,
  contentType: 'application/json',
  readBody: async () => new TextEncoder().encode(body === undefined ? '' : JSON.stringify(body)),
});

async function status(): Promise<{ sandbox: string; problems?: string[] }> {
  return (await http.answerApi('/api/sandbox', asked('GET'))).body as {
    sandbox: string;
    problems?: string[];
  };
}

describe('the sandbox status and the cluster watch', () => {
  before(async () => {
    process.env.VALKEY_URL = box.sandbox.standalone.url;
    process.env.VALKEY_CLUSTER_URL = box.sandbox.cluster!.url;
    http = await import('../../server/api/api.ts');
  });
  after(async () => {
    const { explorerRuntime } = await import('../../server/explorer/runtime.ts');
    await (await explorerRuntime()).close();
  });

  it('says degraded while a migration is left half-done, and up once the watch has finished it', async () => {
    assert.equal((await status()).sandbox, 'up');
    // As a site killed mid-move leaves it: both sides open, one key over, two still on the source.
    const keys = [1, 2, 3].map((i) => `{fills}:left:${i}`);
    const { n, shards, s, t, nodes, migrate, close } = await leaveSlotOpen(box.sandbox.cluster!, keys);
    try {
      await migrate('', keys[0]!);

      // A status is read at most once a second: the next reading says what is wrong.
      let broken = await status();
      for (let i = 0; i < 20 && broken.sandbox === 'up'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        broken = await status();
      }
      assert.equal(broken.sandbox, 'degraded');
      assert.match(
        broken.problems!.join('; '),
        new RegExp(`slot ${n} is left MIGRATING on ${shards[s]!.address}`),
      );
      assert.match(
        broken.problems!.join('; '),
        new RegExp(`slot ${n} is left IMPORTING on ${shards[t]!.address}`),
      );

      // The watch checks every 10 s: it finishes the move (the rest sent over), and the status is up.
      const deadline = Date.now() + 40_000;
      let now = broken;
      while (now.sandbox !== 'up' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        now = await status();
        assert.notEqual(now.sandbox, 'down');
      }
      assert.equal(now.sandbox, 'up', JSON.stringify(now));
      for (const node of nodes) {
        assert.equal(ownerOf(await readShards(node), n)?.id, shards[t]!.id);
      }
      assert.deepEqual(await Promise.all(keys.map((key) => nodes[t]!.get(key))), keys, 'no key lost');
      const route = await http.answerApi('/api/experiments/route', asked('POST', { queue: 'fills' }));
      assert.equal(route.status, 200, JSON.stringify(route.body));
      await nodes[t]!.del(...keys);
    } finally {
      close();
    }
  });

  it('says degraded while the migration turn is held, the watch’s own repair or a move, not up', async () => {
    const { explorerRuntime } = await import('../../server/explorer/runtime.ts');
    const { MIGRATION_LOCK } = await import('../../server/explorer/slot-migration.ts');
    const runtime = await explorerRuntime();
    // A key on both sides (MIGRATE COPY): the watch's MIGRATE meets BUSYKEY, so it cannot settle it.
    const key = '{fills}:left:both';
    const { nodes, t, migrate, close } = await leaveSlotOpen(box.sandbox.cluster!, [key]);
    try {
      await migrate('COPY', key);
      let broken = await status();
      for (let i = 0; i < 20 && broken.sandbox !== 'degraded'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        broken = await status();
      }
      assert.equal(broken.sandbox, 'degraded');
      // Holding the turn as a repair or a move does: past the status cache, a reading is taken inside it.
      const inTurn = await runtime.locks.line.with(
        MIGRATION_LOCK,
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 1_200));
          return status();
        },
        10_000,
      );
      assert.equal(inTurn.sandbox, 'degraded', JSON.stringify(inTurn));
      assert.deepEqual(inTurn.problems, broken.problems);

      // Finished by hand, as an operator would: the watch settles the slot and the status is up again.
      await migrate('REPLACE', key);
      const deadline = Date.now() + 40_000;
      let now = await status();
      while (now.sandbox !== 'up' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        now = await status();
      }
      assert.equal(now.sandbox, 'up', JSON.stringify(now));
      await nodes[t]!.del(key);
    } finally {
      close();
    }
  });
});
