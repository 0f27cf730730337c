// What the course, docs/wire.md and the error catalogue say a migrating slot answers, held to a real
// three-node cluster (Valkey 8.0.1, the native module loaded): slot 105 (`orders`) is moved from its owner
// to the next node by hand, one key first, and each call of the table is asked of each node. ASK comes
// only from the migrating owner, the third node answers MOVED, the claim (script and EMQ.CLAIM) meets
// TRYAGAIN on both sides while its keys are split, then ASK on the source once none of them is left there
// (TRYAGAIN still on the target after ASKING), and after SETSLOT … NODE the new owner routes it to the
// module. A single-key read sent with ASKING to the target for a key still on the source is answered as
// if the key were absent (a silent wrong read); a call that needs a key not yet written gets TRYAGAIN from
// the moment the source is MIGRATING. And the module does run mid-migration on the importing target: once
// a complete's three keys have moved, the target after ASKING hands EMQ.COMPLETE to trafikey (EMQWIRE),
// while the source answers ASK. On a cluster the module's own key checks may never run: an empty queue
// name and a wrong key count are refused with CROSSSLOT by the server's routing first.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ReplyError, type Valkey } from 'iovalkey';
import { catalogueText } from '../../server/contract/catalogue/catalogue-text.ts';
import { ERROR_CODES } from '../../server/contract/catalogue/error-codes.ts';
import { textPattern } from '../support/catalogue-rows.ts';
import { callFor } from '../../server/contract/calls.ts';
import { jobKey, queueKey, rowBase, slot } from '../../server/contract/keyspace/index.ts';
import { ownerOf, readShards } from '../../server/sandbox/cluster-topology.ts';
import { settleOwner } from '../../server/sandbox/slot-settle.ts';
import { useSandbox } from '../support/sandbox.ts';
import { migrateKeys } from '../support/migrate-keys.ts';

const box = useSandbox();
const ROOT = new URL('../../', import.meta.url).pathname;

const QUEUE = 'orders';
const SLOT = slot(queueKey(QUEUE, 'pending'));
const ID = 'JOB0Nb1VTbfnu4';
const CLAIM_KEYS = [queueKey(QUEUE, 'pending'), queueKey(QUEUE, 'active'), rowBase(QUEUE)];

/** The reply a node gives, or the text of its error reply. */
async function answer(call: Promise<unknown>): Promise<unknown> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ReplyError) return (error as Error).message;
    throw error;
  }
}

/** One catalogue row's text for `code`, the exact server text when it has no placeholder. */
function catalogued(code: string): RegExp {
  const rows = ERROR_CODES.filter((e) => e.code === code && e.by.includes('server'));
  assert.equal(rows.length, 1, `one server row for ${code}`);
  return textPattern(rows[0]!.text);
}

const address = (node: Valkey) => `${node.options.host}:${node.options.port}`;

/**
 * The NODE step on every node, the first of `nodes` the owner, for good (settleOwner: the owner's epoch
 * raised above the others', every view read back): plain SETSLOT NODE can be turned back by the old
 * owner's late gossip, and the next test would find the nodes disagreeing on who owns the slot.
 */
async function handOver(nodes: Valkey[], ownerId: string): Promise<void> {
  const byAddress = new Map(nodes.map((node) => [address(node), node]));
  const owner = nodes[0]!;
  await settleOwner((at) => byAddress.get(at)!, [...byAddress.keys()], [SLOT], ownerId, address(owner));
}

describe('a slot that moves, on the real cluster', () => {
  it('answers as the course’s table says: ASK from the owner only, TRYAGAIN for a split claim, ASK once its keys left', async () => {
    assert.equal(SLOT, 105);
    const [source, target, third] = [0, 1, 2].map((i) => box.clusterNode(i)) as [Valkey, Valkey, Valkey];
    const [sourceId, targetId] = (await Promise.all(
      [source, target].map(async (n) => String(await n.call('CLUSTER', 'MYID'))),
    )) as [string, string];
    await source.zadd(queueKey(QUEUE, 'pending'), 0, ID);
    await source.zadd(queueKey(QUEUE, 'active'), 0, 'JOB0Nb1VTbfnu5');
    await source.hset(jobKey(QUEUE, ID), 'state', 'pending', 'attempts', '0', 'payload', 'p');
    const admin = box.sandbox.cluster!.admin!;
    const migrate = (...keys: string[]) => migrateKeys(source, target, keys, admin);
    const claimScript = (node: Valkey) => answer(node.eval('return 1', 3, ...CLAIM_KEYS));
    const claimNative = (node: Valkey) => answer(node.call('EMQ.CLAIM', '3', ...CLAIM_KEYS, '1000'));
    const asking = async (node: Valkey, call: () => Promise<unknown>) => {
      await node.call('ASKING');
      return call();
    };

    assert.equal(await target.call('CLUSTER', 'SETSLOT', String(SLOT), 'IMPORTING', sourceId), 'OK');
    assert.equal(await source.call('CLUSTER', 'SETSLOT', String(SLOT), 'MIGRATING', targetId), 'OK');
    try {
      // before any MIGRATE: a complete or a retry names a key not yet written (metrics:completed,
      // schedule, dead, metrics:failed), so the source answers TRYAGAIN already, script and module alike
      for (const call of [
        callFor('complete', QUEUE, { id: ID, token: 1 }),
        callFor('retry', QUEUE, { id: ID, token: 1, delay_ms: 10, max_attempts: 3, error: 'e' }),
      ]) {
        const transition = call.transition;
        // (a key the source never held is answered ASK, one it holds 1)
        const exist = await Promise.all(call.keys.map((key) => answer(source.exists(key))));
        assert.equal(exist.filter((e) => e === 1).length, 2, `${transition}: its row and active set exist`);
        assert.equal(
          await answer(source.eval('return 1', call.keys.length, ...call.keys)),
          catalogueText('TRYAGAIN'),
        );
        const command = transition === 'complete' ? 'EMQ.COMPLETE' : 'EMQ.RETRY';
        assert.equal(
          await answer(source.call(command, String(call.keys.length), ...call.keys, ...call.args)),
          catalogueText('TRYAGAIN'),
        );
      }
      assert.equal(await migrate(queueKey(QUEUE, 'active')), 'OK');
      const tryAgain = catalogued('TRYAGAIN');
      const ask = `ASK ${SLOT} ${address(target)}`;
      const movedToSource = `MOVED ${SLOT} ${address(source)}`;

      // one key, still on the source / already moved
      assert.equal(await answer(source.zcard(queueKey(QUEUE, 'pending'))), 1);
      // a silent wrong read: with ASKING the target serves a read of a key it does not hold yet, as if
      // the key did not exist, while the source still holds it
      assert.deepEqual(await answer(source.zrange(queueKey(QUEUE, 'pending'), 0, -1)), [ID]);
      assert.deepEqual(
        await asking(target, () => answer(target.zrange(queueKey(QUEUE, 'pending'), 0, -1))),
        [],
      );
      assert.equal(await asking(target, () => answer(target.exists(queueKey(QUEUE, 'pending')))), 0);
      assert.equal(await answer(target.zcard(queueKey(QUEUE, 'pending'))), movedToSource);
      assert.equal(await answer(source.zcard(queueKey(QUEUE, 'active'))), ask);
      assert.match(ask, catalogued('ASK'));
      assert.equal(await answer(target.zcard(queueKey(QUEUE, 'active'))), movedToSource);
      assert.equal(await asking(target, () => answer(target.zcard(queueKey(QUEUE, 'active')))), 1);
      // a node that does not serve the slot never answers ASK
      for (const key of [queueKey(QUEUE, 'pending'), queueKey(QUEUE, 'active')]) {
        assert.equal(await answer(third.zcard(key)), movedToSource);
        assert.match(movedToSource, catalogued('MOVED'));
      }
      // the claim declares the row base, never a key: TRYAGAIN on both sides, script and module alike
      for (const claim of [claimScript, claimNative]) {
        const onSource = await claim(source);
        assert.equal(typeof onSource, 'string');
        assert.equal(onSource, catalogueText('TRYAGAIN'));
        assert.equal(await asking(target, () => claim(target)), onSource);
      }

      assert.equal(await migrate(queueKey(QUEUE, 'pending'), jobKey(QUEUE, ID)), 'OK');
      // nothing the claim names is left on the source: ASK there (script and module alike), still
      // TRYAGAIN on the target after ASKING, where the row base is missing
      for (const claim of [claimScript, claimNative]) {
        assert.equal(await claim(source), ask);
        assert.match(String(await asking(target, () => claim(target))), tryAgain);
      }
      // several keys, none of them on the target (nor anywhere): TRYAGAIN there after ASKING too
      const none = [queueKey(QUEUE, 'schedule'), queueKey(QUEUE, 'dead')];
      assert.equal(
        await asking(target, () => answer(target.eval('return 1', 2, ...none))),
        catalogueText('TRYAGAIN'),
      );
      // several keys, all present on the target: served after ASKING
      const both = [queueKey(QUEUE, 'pending'), queueKey(QUEUE, 'active')];
      assert.equal(await asking(target, () => answer(target.eval('return #KEYS', 2, ...both))), 2);
    } finally {
      await handOver([target, source, third], targetId);
    }
    // after the NODE step: the new owner routes the claim on to the module, the old one says MOVED
    assert.equal(
      await claimNative(target),
      'EMQWIRE expected a standalone server but cluster mode is enabled',
    );
    assert.equal(await claimScript(source), `MOVED ${SLOT} ${address(target)}`);
  });

  it('runs the module on the importing target after ASKING once a call’s keys have all moved', async () => {
    const nodes = [0, 1, 2].map((i) => box.clusterNode(i));
    const owner = ownerOf(await readShards(nodes[0]!), SLOT)!;
    const at = nodes.findIndex((node) => address(node) === owner.address);
    const [source, target, third] = [0, 1, 2].map((k) => nodes[(at + k) % 3]!) as [Valkey, Valkey, Valkey];
    const [sourceId, targetId] = (await Promise.all(
      [source, target].map(async (n) => String(await n.call('CLUSTER', 'MYID'))),
    )) as [string, string];
    const complete = callFor('complete', QUEUE, { id: ID, token: 1 });
    const emqComplete = (node: Valkey) =>
      answer(node.call('EMQ.COMPLETE', String(complete.keys.length), ...complete.keys, ...complete.args));
    // the slot holds only this test's keys (the table's test leaves its own on the owner), so that it
    // can be handed over afterwards
    const left = (await source.call('CLUSTER', 'GETKEYSINSLOT', String(SLOT), '100')) as string[];
    if (left.length > 0) await source.del(...left);
    await source.zadd(queueKey(QUEUE, 'active'), 0, ID);
    await source.hset(jobKey(QUEUE, ID), 'state', 'active', 'attempts', '1', 'payload', 'p');
    await source.hset(queueKey(QUEUE, 'metrics:completed'), 'count', '0');
    const admin = box.sandbox.cluster!.admin!;
    assert.equal(await target.call('CLUSTER', 'SETSLOT', String(SLOT), 'IMPORTING', sourceId), 'OK');
    assert.equal(await source.call('CLUSTER', 'SETSLOT', String(SLOT), 'MIGRATING', targetId), 'OK');
    const EMQWIRE = 'EMQWIRE expected a standalone server but cluster mode is enabled';
    try {
      // before any key moves, the owner serves the call: the module runs there
      assert.equal(await emqComplete(source), EMQWIRE);
      const moved = await migrateKeys(source, target, complete.keys, admin);
      assert.equal(moved, 'OK');
      // every key of the call is on the target now: the source says ASK, no module runs there…
      assert.equal(await emqComplete(source), `ASK ${SLOT} ${address(target)}`);
      // …and the target, asked after ASKING, routes the call to its module, which refuses it
      await target.call('ASKING');
      assert.equal(await emqComplete(target), EMQWIRE);
      // without ASKING the target, and always the third node, send the caller back to the source
      assert.equal(await emqComplete(target), `MOVED ${SLOT} ${address(source)}`);
      assert.equal(await emqComplete(third), `MOVED ${SLOT} ${address(source)}`);
      // the refused call wrote nothing: the three keys are as they arrived
      await target.call('ASKING');
      assert.deepEqual(await target.hgetall(jobKey(QUEUE, ID)), {
        state: 'active',
        attempts: '1',
        payload: 'p',
      });
    } finally {
      await handOver([target, source, third], targetId);
      await target.del(...complete.keys);
    }
  });

  it('refuses an empty queue name and a wrong key count with CROSSSLOT before the module runs', async () => {
    const node = box.clusterNode(0);
    const crossSlot = catalogueText('CROSSSLOT');
    // emq:{}:… has no hashtag: each key is hashed whole, onto its own slot
    const empty = [queueKey('', 'pending'), queueKey('', 'active'), rowBase('')];
    assert.equal(new Set(empty.map(slot)).size, 3);
    assert.equal(await answer(node.call('EMQ.CLAIM', '3', ...empty, '30000')), crossSlot);
    // numkeys 2: the server still reads three keys (the verb's fixed key positions), the timeout third
    assert.notEqual(slot('30000'), SLOT);
    assert.equal(await answer(node.call('EMQ.CLAIM', '2', ...CLAIM_KEYS.slice(0, 2), '30000')), crossSlot);
  });

  it('is the table docs/wire.md gives, naming each answer as the catalogue writes it', () => {
    const wire = readFileSync(`${ROOT}docs/wire.md`, 'utf8');
    const section = wire.slice(wire.indexOf('### A slot that moves'));
    const row = (call: string) =>
      section
        .split('\n')
        .find((line) => line.startsWith(`| ${call} |`))
        ?.split('|')
        .map((cell) => cell.trim());
    // TRYAGAIN's text is the catalogue's (held to the server above): the table names its class.
    assert.equal(row('several keys, some present, some missing')?.[2], '`TRYAGAIN …`');
    assert.equal(row('one key, already moved')?.[2], '`ASK <slot> <target>`');
    assert.equal(row('one key, still on the source')?.[3], '`MOVED <slot> <source>` (without `ASKING`)');
    assert.doesNotMatch(section, /non-owner[^.]*ASK/);
  });
});
