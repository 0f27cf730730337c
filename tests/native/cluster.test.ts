// On the sandbox's cluster-enabled node (which loads trafikey too): every EMQ.* write with exact keys is
// refused with exactly the EMQWIRE cluster message, installed identity or not, and writes nothing; the
// server's own slot checks and the layout check come first. Also: the commands declare their keys and
// flags, as ACLs and COMMAND GETKEYS see them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callFor } from '../../server/executors/calls.ts';
import { NativeExecutor } from '../../server/executors/native.ts';
import { TRANSITIONS, type Call } from '../../server/executors/transitions.ts';
import { WireError } from '../../server/executors/wire-error.ts';
import { IdMinter, versionKey, WIRE6_IDENTITY } from '../../server/keyspace/index.ts';
import { dumpKeyspace } from '../../server/conformance/keyspace-dump.ts';
import { useNativeSandbox } from './support.ts';

const box = useNativeSandbox();
const minter = new IdMinter(64);
const CLUSTER_MODE = 'EMQWIRE expected a standalone server but cluster mode is enabled';

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

async function refusedOnCluster(calls: Call[], message: (call: Call) => string): Promise<void> {
  const client = box.cluster();
  const native = new NativeExecutor(client);
  const before = await dumpKeyspace(client);
  const verdicts = await native.runMany(calls);
  verdicts.forEach((verdict, i) => {
    const call = calls[i]!;
    assert.ok(verdict instanceof WireError, `${call.transition}: accepted on a cluster node`);
    assert.equal(verdict.message, message(call), `${call.transition} ${JSON.stringify(call.keys)}`);
  });
  assert.deepEqual(await dumpKeyspace(client), before, 'a refusal wrote');
}

describe('on a cluster-enabled node', () => {
  it('has the module loaded and cluster mode on', async () => {
    const client = box.cluster();
    const modules = JSON.stringify(await client.call('MODULE', 'LIST'));
    assert.match(modules, /trafikey/);
    assert.match(String(await client.call('CLUSTER', 'INFO')), /cluster_state:ok/);
    assert.match(String(await client.info('cluster')), /cluster_enabled:1/);
  });

  it('refuses every EMQ.* write with exact keys with exactly the EMQWIRE message, writing nothing', async () => {
    const queues = ['orders', 'fills', 'ça-va', 'emq', 'a b', '🙂'];
    await refusedOnCluster(
      queues.flatMap((queue) => everyWrite(queue)),
      () => CLUSTER_MODE,
    );
  });

  it('refuses them the same with the identity installed: the server mode is checked first', async () => {
    const client = box.cluster();
    await client.set(versionKey(), WIRE6_IDENTITY);
    try {
      await refusedOnCluster(everyWrite('orders'), () => CLUSTER_MODE);
    } finally {
      await client.del(versionKey());
    }
  });

  it('answers the layout check before the server mode, and the server’s CROSSSLOT before both', async () => {
    // Same slot, wrong key: the layout speaks.
    const claim = callFor('claim', 'orders', { lease_ms: 1000 });
    await refusedOnCluster(
      [{ ...claim, keys: [claim.keys[0]!, 'emq:{orders}:dead', claim.keys[2]!] }],
      () => "EMQKEY key 2 differs at byte 13: expected 'emq:{orders}:active' but found 'emq:{orders}:dead'",
    );
    // Two slots: the server refuses before the module sees the call (the empty name hashes whole).
    await refusedOnCluster(
      [
        { ...claim, keys: [claim.keys[0]!, 'emq:{fills}:active', claim.keys[2]!] },
        { ...claim, keys: claim.keys.map((key) => key.replace('{orders}', '{}')) },
      ],
      () => "CROSSSLOT Keys in request don't hash to the same slot",
    );
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
