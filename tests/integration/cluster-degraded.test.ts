// GET /api/sandbox tells the truth about the cluster's slot map (issue 16.2): with a slot the nodes
// disagree about it answers `degraded` and names the slot, never `up`; the site's watch then repairs
// it (in the migration turn, logged) and the status is `up` again, with a route run on that queue served.
// The API is called in-process (answerApi), against a real three-node cluster this file owns.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { queueKey, slot } from '../../server/keyspace/index.ts';
import { readShards } from '../../server/sandbox/cluster-topology.ts';
import { raiseEpoch } from '../../server/sandbox/slot-settle.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ native: false, standaloneSettings: { databases: '32' } });

type Http = typeof import('../../server/experiments/http.ts');
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
    http = await import('../../server/experiments/http.ts');
  });
  after(async () => {
    const { explorerRuntime } = await import('../../server/experiments/runtime.ts');
    await (await explorerRuntime()).close();
  });

  it('says degraded while nodes disagree about a slot, and up once the watch has repaired it', async () => {
    assert.equal((await status()).sandbox, 'up');
    const nodes = box.sandbox.cluster!.url.split(',').map((url) => new Valkey(url));
    try {
      const shards = await readShards(nodes[0]!);
      const n = slot(queueKey('fills', 'pending'));
      const owner = shards.findIndex((s) => s.slots.some(([a, b]) => n >= a && n <= b));
      const [told, claimed] = [0, 1, 2].filter((i) => i !== owner) as [number, number];
      // The node named as owner gets the greatest epoch, so gossip alone does not turn the view back.
      const dial = (address: string) => nodes[shards.findIndex((s) => s.address === address)]!;
      const all = shards.map((s) => s.address);
      await raiseEpoch(dial, shards[claimed]!.address, all, Date.now() + 10_000);
      await nodes[told]!.call('CLUSTER', 'SETSLOT', n, 'NODE', shards[claimed]!.id);

      // A status is read at most once a second: the next reading says what is wrong.
      let broken = await status();
      for (let i = 0; i < 60 && broken.sandbox === 'up'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        broken = await status();
      }
      assert.equal(broken.sandbox, 'degraded');
      assert.match(
        broken.problems!.join('; '),
        new RegExp(`nodes disagree about the owner of slots ${n}\\b`),
      );

      // The watch checks every 10 s; within a few rounds the slot is one node's again.
      const deadline = Date.now() + 40_000;
      let now = broken;
      while (now.sandbox !== 'up' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        now = await status();
        assert.notEqual(now.sandbox, 'down');
      }
      assert.equal(now.sandbox, 'up', JSON.stringify(now));
      // Every node names one owner for the slot (gossip may have moved it meanwhile: no key was there).
      const owners = new Set<string | undefined>();
      for (const node of nodes) {
        const view = await readShards(node);
        owners.add(view.find((s) => s.slots.some(([a, b]) => n >= a && n <= b))?.id);
      }
      assert.equal(owners.size, 1);
      assert.ok(!owners.has(undefined));
      const route = await http.answerApi('/api/experiments/route', asked('POST', { queue: 'fills' }));
      assert.equal(route.status, 200, JSON.stringify(route.body));
    } finally {
      for (const node of nodes) node.disconnect();
    }
  });
});
