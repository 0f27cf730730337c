// On the sandbox's three-node cluster (every node loads trafikey): the server routes an EMQ.* call before
// the module sees it. A node that does not own the keys' slot answers MOVED to the owner; keys of two
// slots get CROSSSLOT; only the owner calls the module, which refuses every write with exactly the
// EMQWIRE cluster message (identity installed or not) after its layout check. Nothing is written on any
// node. Also: the commands declare their keys and flags, as ACLs and COMMAND GETKEYS see them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import { callFor } from '../../server/contract/calls.ts';
import { NativeExecutor } from '../../server/executors/native.ts';
import { TRANSITIONS, type Call } from '../../server/contract/transitions.ts';
import { WireError } from '../../server/executors/wire-error.ts';
import { IdMinter, slot, versionKey, WIRE6_IDENTITY } from '../../server/contract/keyspace/index.ts';
import { dumpKeyspace, type KeyspaceDump } from '../../server/inspect/keyspace-dump.ts';
import { ownerOf, readShards } from '../../server/sandbox/cluster-topology.ts';
import { useNativeSandbox } from './support.ts';

const box = useNativeSandbox();
const minter = new IdMinter(64);
const CLUSTER_MODE = 'EMQWIRE expected a standalone server but cluster mode is enabled';
const CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";

function everyWrite(queue: string): Call[] {
  const id = minter.mint();
  return [
    callFor('enqueue', queue, { id, payload: 'x' }),
    callFor('schedule', queue, { id: minter.mint(), payload: 'x', run_at_ms: 0 }),
    callFor('claim', queue, { lease_ms: 1000 }),
    callFor('complete', queue, { id, token: 1 }),
    callFor('retry', queue, { id, token: 1, delay_ms: 0, max_attempts: 3, error: 'e' }),
    callFor('promote', queue, { batch: 10 }),
    callFor('reap', queue, { batch: 10 }),
  ];
}

const nodes = (): Valkey[] => [0, 1, 2].map((i) => box.clusterNode(i));

async function dumpAll(): Promise<KeyspaceDump[]> {
  return Promise.all(nodes().map((node) => dumpKeyspace(node)));
}

/** Each call sent to every node directly: the answer each node gives, by the node's address. */
async function answers(call: Call): Promise<Map<string, string>> {
  const shards = await readShards(nodes()[0]!);
  const replies = new Map<string, string>();
  for (const [i, node] of nodes().entries()) {
    const verdict = (await new NativeExecutor(node).runMany([call]))[0];
    assert.ok(verdict instanceof WireError, `${call.transition}: accepted on node ${i}`);
    replies.set(shards[i]!.address, verdict.message);
  }
  return replies;
}

async function refusedEverywhere(calls: Call[], ownerSays: (call: Call) => string): Promise<void> {
  const before = await dumpAll();
  const shards = await readShards(nodes()[0]!);
  for (const call of calls) {
    const callSlot = slot(call.keys[0]!);
    const owner = ownerOf(shards, callSlot)!.address;
    for (const [address, message] of await answers(call)) {
      const expected = address === owner ? ownerSays(call) : `MOVED ${callSlot} ${owner}`;
      assert.equal(message, expected, `${call.transition} ${JSON.stringify(call.keys)} on ${address}`);
    }
  }
  assert.deepEqual(await dumpAll(), before, 'a refusal wrote');
}

describe('on the three-node cluster', () => {
  it('every node has the module loaded, cluster mode on and cluster_state:ok', async () => {
    for (const node of nodes()) {
      assert.match(JSON.stringify(await node.call('MODULE', 'LIST')), /trafikey/);
      assert.match(String(await node.call('CLUSTER', 'INFO')), /cluster_state:ok/);
      assert.match(String(await node.info('cluster')), /cluster_enabled:1/);
    }
  });

  it('a non-owner answers MOVED to the owner; the owner refuses every write with exactly EMQWIRE; nothing is written', async () => {
    const queues = ['orders', 'fills', 'ça-va', 'emq', 'a b', '🙂', 'x'];
    // The queues land on all three nodes, so every node is seen as owner and as non-owner.
    const shards = await readShards(nodes()[0]!);
    const owners = new Set(queues.map((q) => ownerOf(shards, slot(`emq:{${q}}:pending`))!.address));
    assert.equal(owners.size, 3, 'the queues cover all three nodes');
    await refusedEverywhere(
      queues.flatMap((queue) => everyWrite(queue)),
      () => CLUSTER_MODE,
    );
  });

  it('refuses them the same with the identity installed on its slot: the server mode is checked first', async () => {
    const cluster = box.cluster();
    await cluster.set(versionKey(), WIRE6_IDENTITY);
    try {
      await refusedEverywhere(everyWrite('orders'), () => CLUSTER_MODE);
      await refusedEverywhere(everyWrite('emq'), () => CLUSTER_MODE);
    } finally {
      await cluster.del(versionKey());
    }
  });

  it('answers the layout check before the server mode, and the server’s CROSSSLOT before both, on every node', async () => {
    // Same slot, wrong key: routing passes, the owner's module speaks (layout); the others say MOVED.
    const claim = callFor('claim', 'orders', { lease_ms: 1000 });
    await refusedEverywhere(
      [{ ...claim, keys: [claim.keys[0]!, 'emq:{orders}:dead', claim.keys[2]!] }],
      () => "EMQKEY key 2 differs at byte 13: expected 'emq:{orders}:active' but found 'emq:{orders}:dead'",
    );
    // Two slots: every node refuses before any routing to an owner (the empty name hashes whole).
    const before = await dumpAll();
    for (const keys of [
      [claim.keys[0]!, 'emq:{fills}:active', claim.keys[2]!],
      claim.keys.map((key) => key.replace('{orders}', '{}')),
    ]) {
      for (const message of (await answers({ ...claim, keys })).values()) assert.equal(message, CROSSSLOT);
    }
    assert.deepEqual(await dumpAll(), before);
  });
});

describe('the commands declare their keys and flags', () => {
  it('COMMAND GETKEYS names exactly the declared keys of every verb', async () => {
    const client = box.standalone(0);
    for (const call of everyWrite('orders')) {
      const command = TRANSITIONS[call.transition].command!;
      assert.deepEqual(
        await client.call('COMMAND', 'GETKEYS', command, call.keys.length, ...call.keys, ...call.args),
        call.keys,
        command,
      );
    }
  });

  it('flags every verb write and denyoom', async () => {
    const client = box.standalone(0);
    for (const call of everyWrite('orders')) {
      const command = TRANSITIONS[call.transition].command!;
      const [info] = (await client.call('COMMAND', 'INFO', command)) as Array<[string, number, string[]]>;
      assert.equal(info![0].toLowerCase(), command.toLowerCase());
      assert.ok(info![2].includes('write') && info![2].includes('denyoom'), `${command}: ${info![2]}`);
    }
  });
});
