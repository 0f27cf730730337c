// Valkey 9.1's atomic slot migration with trafikey loaded, on real three-node clusters of the built
// Valkey 9.1 (scripts/valkey9.sh). Without the module's opt-in the server refuses CLUSTER MIGRATESLOTS
// (naming the module) and the SETSLOT path stays open; with it, a queue's slot moves whole: every key
// arrives on the target byte for byte (DUMP before and after), the rows and sets trafikey itself wrote
// on a standalone Valkey 9 included. And on Valkey 8 (the project's main server) the same option is
// harmless: the module loads, shows no option and serves. The two ways do not mix: a slot a SETSLOT
// opened refuses MIGRATESLOTS; meanwhile the importing target after ASKING reads a key still on the source
// as absent, and an empty queue name is refused with CROSSSLOT before the module, as on Valkey 8.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { callFor } from '../../server/contract/calls.ts';
import { scriptFor } from '../../server/executors/scripts.ts';
import { TRANSITIONS, type Call } from '../../server/contract/transitions.ts';
import {
  IdMinter,
  queueKey,
  slot,
  versionKey,
  WIRE6_IDENTITY,
} from '../../server/contract/keyspace/index.ts';
import { startCluster, type SandboxCluster } from '../../server/sandbox/cluster.ts';
import { ownerOf, readShards, type ShardNode } from '../../server/sandbox/cluster-topology.ts';
import { nativeModulePath, startValkeyNode, type ValkeyNode } from '../../server/sandbox/valkey-process.ts';
import { boundedTeardown } from '../support/teardown.ts';
import { until } from '../support/until.ts';
import { valkey9ForTests } from '../support/valkey9.ts';

const { build, skip } = await valkey9ForTests();
const module = nativeModulePath();
const QUEUE = 'orders';
const SLOT = slot(queueKey(QUEUE, 'pending'));
const REFUSAL =
  'ERR The module trafikey does not support atomic slot migrations. Please ensure all modules have declared support for atomic slot migration and try again';
const minter = new IdMinter(64);

const admin = () => ({ username: 'admin', password: randomBytes(12).toString('base64url') });

function startNine(moduleArgs: string[] = []): Promise<SandboxCluster> {
  return startCluster({ binary: build!.server, module, moduleArgs, admin: admin(), peerAuth: true });
}

const native = (call: Call): string[] => [
  TRANSITIONS[call.transition].command!,
  String(call.keys.length),
  ...call.keys,
  ...call.args,
];

/** One node of `cluster` as its admin, by address; closed by `close`. */
function nodesOf(cluster: SandboxCluster) {
  const open: Valkey[] = [];
  return {
    node(address: string): Valkey {
      const [host, port] = [
        address.slice(0, address.lastIndexOf(':')),
        address.slice(address.lastIndexOf(':') + 1),
      ];
      const client = new Valkey({ host, port: Number(port), ...cluster.admin!, maxRetriesPerRequest: 1 });
      open.push(client);
      return client;
    },
    close: () => open.forEach((client) => client.disconnect()),
  };
}

/** The slot's owner and the next node, read live. */
async function ends(client: Valkey): Promise<{ source: ShardNode; target: ShardNode; all: ShardNode[] }> {
  const all = await readShards(client);
  const source = ownerOf(all, SLOT)!;
  return { source, target: all[(all.indexOf(source) + 1) % all.length]!, all };
}

/** Every key a node holds in the slot, with its DUMP (the serialized value, byte for byte). */
async function dumpSlot(node: Valkey): Promise<Map<string, string>> {
  const keys = (await node.call('CLUSTER', 'GETKEYSINSLOT', SLOT, 100_000)) as string[];
  const dumps = await Promise.all(keys.map((key) => node.dumpBuffer(key)));
  return new Map(keys.map((key, i) => [key, dumps[i]!.toString('hex')]));
}

describe('atomic slot migration on Valkey 9.1 with trafikey', { skip }, () => {
  it('is refused while trafikey has not opted in, naming it; the SETSLOT path stays open', async () => {
    const cluster = await startNine(['no-atomic-slot-migration']);
    const nodes = nodesOf(cluster);
    try {
      const first = nodes.node(`127.0.0.1:${cluster.seeds[0]!.port}`);
      assert.match(String(await first.call('INFO', 'modules')), /module:name=trafikey,.*options=\[\]/);
      const { source, target } = await ends(first);
      await assert.rejects(
        nodes
          .node(source.address)
          .call('CLUSTER', 'MIGRATESLOTS', 'SLOTSRANGE', SLOT, SLOT, 'NODE', target.id),
        (error: Error) => error.message === REFUSAL,
      );
      assert.deepEqual(await nodes.node(source.address).call('CLUSTER', 'GETSLOTMIGRATIONS'), []);
      // The key-by-key migration is still allowed (and undone at once).
      assert.equal(
        await nodes.node(target.address).call('CLUSTER', 'SETSLOT', SLOT, 'IMPORTING', source.id),
        'OK',
      );
      assert.equal(await nodes.node(target.address).call('CLUSTER', 'SETSLOT', SLOT, 'STABLE'), 'OK');
    } finally {
      nodes.close();
      await cluster.stop();
    }
  });

  describe('with the opt-in', () => {
    let cluster: SandboxCluster;
    let standalone: ValkeyNode;
    let nodes: ReturnType<typeof nodesOf>;
    before(async () => {
      [cluster, standalone] = await Promise.all([
        startNine(),
        startValkeyNode({ binary: build!.server, module, admin: admin() }),
      ]);
      nodes = nodesOf(cluster);
    });
    after(() =>
      boundedTeardown(async () => {
        nodes?.close();
        await Promise.all([cluster?.stop(), standalone?.stop()]);
      }),
    );

    it('says so in INFO modules on every node', async () => {
      for (const seed of cluster.seeds) {
        const info = String(await nodes.node(`127.0.0.1:${seed.port}`).call('INFO', 'modules'));
        assert.match(info, /module:name=trafikey,.*options=\[handle-atomic-slot-migration\]/);
      }
    });

    it('does not mix with the key by key way: a slot opened by SETSLOT refuses MIGRATESLOTS; the target’s silent wrong read', async () => {
      const { source, target } = await ends(nodes.node(`127.0.0.1:${cluster.seeds[0]!.port}`));
      const [from, to] = [nodes.node(source.address), nodes.node(target.address)];
      // a key the source holds before the slot opens (a new key on a migrating source is answered ASK)
      const pending = queueKey(QUEUE, 'pending');
      await from.zadd(pending, 0, 'JOB0Nb1VTbfnu4');
      assert.equal(await to.call('CLUSTER', 'SETSLOT', SLOT, 'IMPORTING', source.id), 'OK');
      assert.equal(await from.call('CLUSTER', 'SETSLOT', SLOT, 'MIGRATING', target.id), 'OK');
      try {
        await assert.rejects(
          from.call('CLUSTER', 'MIGRATESLOTS', 'SLOTSRANGE', SLOT, SLOT, 'NODE', target.id),
          (error: Error) => error.message === 'ERR Slots are being manually migrated',
        );
        assert.deepEqual(await from.call('CLUSTER', 'GETSLOTMIGRATIONS'), []);
        // the silent wrong read holds on 9.1 too: after ASKING the target serves a read of a key the
        // source still holds as if the key did not exist
        await to.call('ASKING');
        assert.deepEqual(await to.zrange(pending, 0, -1), []);
        assert.deepEqual(await from.zrange(pending, 0, -1), ['JOB0Nb1VTbfnu4']);
      } finally {
        for (const node of [from, to]) await node.call('CLUSTER', 'SETSLOT', SLOT, 'STABLE');
        await from.del(pending);
      }
      // and an empty queue name gets CROSSSLOT before the module runs, as on 8.0.1
      await assert.rejects(
        from.call(
          'EMQ.CLAIM',
          '3',
          queueKey('', 'pending'),
          queueKey('', 'active'),
          `${queueKey('', 'job:')}`,
          '30000',
        ),
        (error: Error) => error.message === "CROSSSLOT Keys in request don't hash to the same slot",
      );
    });

    it('moves a queue’s slot whole: every key, module-written ones included, arrives byte for byte', async () => {
      // trafikey writes only on a standalone server (cluster mode gets EMQWIRE), so its keys are written
      // on a standalone Valkey 9.1 and carried into the cluster with DUMP/RESTORE, bytes unchanged.
      const writer = new Valkey(standalone.url);
      const moduleDumps = new Map<string, string>();
      try {
        await writer.set(versionKey(), WIRE6_IDENTITY);
        for (let i = 0; i < 200; i += 1) {
          const reply = await writer.call(
            ...(native(callFor('enqueue', QUEUE, { id: minter.mint(), payload: `{"m":${i}}` })) as [string]),
          );
          assert.equal(reply, 1);
        }
        for (let i = 0; i < 5; i += 1) {
          await writer.call(
            ...(native(callFor('schedule', QUEUE, { id: minter.mint(), payload: 's', run_at_ms: 4e12 })) as [
              string,
            ]),
          );
          assert.ok(
            Array.isArray(
              await writer.call(...(native(callFor('claim', QUEUE, { lease_ms: 600_000 })) as [string])),
            ),
          );
        }
        for (const key of (await writer.keys('emq:*')) as string[]) {
          moduleDumps.set(key, (await writer.dumpBuffer(key))!.toString('hex'));
        }
      } finally {
        writer.disconnect();
      }
      assert.ok(moduleDumps.has(queueKey(QUEUE, 'active')) && moduleDumps.has(queueKey(QUEUE, 'schedule')));

      const { source, target, all } = await ends(nodes.node(`127.0.0.1:${cluster.seeds[0]!.port}`));
      const owner = nodes.node(source.address);
      for (const [key, hex] of moduleDumps) await owner.restore(key, 0, Buffer.from(hex, 'hex'));
      // Script-written jobs beside them, in the same queue: pending is then both executors' work.
      const sha = scriptFor('enqueue').sha;
      assert.equal(await owner.call('SCRIPT', 'LOAD', scriptFor('enqueue').source), sha);
      const batch = owner.pipeline();
      for (let i = 0; i < 3000; i += 1) {
        const call = callFor('enqueue', QUEUE, { id: minter.mint(), payload: `{"s":${i}}` });
        batch.call('EVALSHA', sha, '2', ...call.keys, ...call.args);
      }
      for (const [error] of (await batch.exec())!) assert.equal(error, null);

      const before = await dumpSlot(owner);
      assert.equal(before.size, moduleDumps.size + 3000);
      for (const [key, hex] of moduleDumps) {
        if (key !== queueKey(QUEUE, 'pending'))
          assert.equal(before.get(key), hex, `${key} as trafikey wrote it`);
      }

      const reply = await owner.call('CLUSTER', 'MIGRATESLOTS', 'SLOTSRANGE', SLOT, SLOT, 'NODE', target.id);
      assert.equal(reply, 'OK');
      const states = new Set<string>();
      await until(
        'the export to end',
        async () => {
          const jobs = (await owner.call('CLUSTER', 'GETSLOTMIGRATIONS')) as string[][];
          const job = jobs.find((fields) => fields[fields.indexOf('slot_ranges') + 1] === `${SLOT}-${SLOT}`);
          const state = job?.[job.indexOf('state') + 1];
          if (state) states.add(state);
          return state && ['success', 'failed', 'cancelled'].includes(state) ? state : null;
        },
        30_000,
      );
      assert.ok(states.has('success'), `the export ended ${[...states].join(' → ')}`);
      await until(
        'every node to name the target',
        async () => {
          for (const node of all) {
            if (ownerOf(await readShards(nodes.node(node.address)), SLOT)?.id !== target.id) return null;
          }
          return true;
        },
        30_000,
      );

      const moved = await dumpSlot(nodes.node(target.address));
      assert.deepEqual([...moved.keys()].sort(), [...before.keys()].sort(), 'the same keys');
      for (const [key, hex] of before) assert.equal(moved.get(key), hex, `${key} byte for byte`);
      await until(
        'the source to drop the slot',
        async () => Number(await owner.call('CLUSTER', 'COUNTKEYSINSLOT', SLOT)) === 0,
        30_000,
      );
      // The source now redirects, and the target serves, the same read.
      await assert.rejects(
        owner.zcard(queueKey(QUEUE, 'pending')),
        (error: Error) => error.message === `MOVED ${SLOT} ${target.address}`,
      );
      assert.equal(await nodes.node(target.address).zcard(queueKey(QUEUE, 'pending')), 200 - 5 + 3000);
    });
  });
});

describe(
  'trafikey’s atomic-migration option on Valkey 8',
  { skip: module ? false : 'trafikey is not built' },
  () => {
    it('is harmless: the module loads, lists no option and serves', async () => {
      const node = await startValkeyNode({ module, admin: admin() });
      const client = new Valkey(node.url);
      try {
        const info = String(await client.call('INFO', 'server'));
        assert.match(info, /valkey_version:8\./);
        assert.match(String(await client.call('INFO', 'modules')), /module:name=trafikey,.*options=\[\]/);
        await client.set(versionKey(), WIRE6_IDENTITY);
        const enqueue = callFor('enqueue', QUEUE, { id: minter.mint(), payload: 'x' });
        assert.equal(await client.call(...(native(enqueue) as [string])), 1);
      } finally {
        client.disconnect();
        await node.stop();
      }
    });
  },
);
