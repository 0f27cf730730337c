// The mutation test: for every EMQ.* verb, on several queue names, calls whose declared keys differ from
// the exact ones in one way — one byte inserted, deleted or replaced (at every offset of every key,
// with seeded random bytes), two keys swapped, one key of another queue, one key with an empty name —
// are all refused with the exact EMQKEY message docs/wire.md prescribes, and write nothing; every exact
// call is accepted. Set MUTATION_SEED to replay another seed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import { callFor } from '../../server/contract/calls.ts';
import { Jobs } from '../../server/executors/jobs.ts';
import { NativeExecutor } from '../../server/executors/native.ts';
import { CORE_TRANSITIONS, type Call, type CoreTransition } from '../../server/contract/transitions.ts';
import { WireError } from '../../server/executors/wire-error.ts';
import { IdMinter, queueKey } from '../../server/contract/keyspace/index.ts';
import { seededRandom } from '../../server/seeded-random.ts';
import { digest, expectedLayoutRefusal, freshNative, rawCall, useNativeSandbox } from './support.ts';

const SEED = Number(process.env.MUTATION_SEED ?? 20_240_101);
const box = useNativeSandbox({ cluster: false });
const minter = new IdMinter(63);

/** Names of different shapes: multi-byte UTF-8 (byte offsets ≠ character offsets), a space, one byte. */
const QUEUES = ['orders', 'ça-va', 'emq', 'a b', 'x'];
const OTHER_QUEUES = ['orders', 'order', 'orders2', 'Orders', 'fills', 'ça-vä', 'emq', 'a  b', 'y'];
const KINDS = ['insert', 'delete', 'replace', 'swap', 'other queue', 'empty name'] as const;
type Kind = (typeof KINDS)[number];

interface Mutation {
  kind: Kind;
  what: string;
  call: Call;
}

/**
 * For each verb: puts the queue in a state where the exact call does work (so an accepted call would
 * write), and returns that exact call and the reply it must get.
 */
async function prepare(
  client: Valkey,
  jobs: Jobs,
  transition: CoreTransition,
  queue: string,
): Promise<{ call: Call; reply: unknown }> {
  const claimed = async (leaseMs: number) => {
    await jobs.enqueue(queue, minter.mint(), 'p');
    return (await jobs.claim(queue, leaseMs))!.id;
  };
  switch (transition) {
    case 'enqueue':
      return { call: callFor('enqueue', queue, { id: minter.mint(), payload: 'p' }), reply: 1 };
    case 'schedule':
      return {
        call: callFor('schedule', queue, { id: minter.mint(), payload: 'p', run_at_ms: 0 }),
        reply: 1,
      };
    case 'claim': {
      await jobs.enqueue(queue, minter.mint(), 'p');
      const [oldest] = await client.zrange(queueKey(queue, 'pending'), 0, 0);
      return { call: callFor('claim', queue, { lease_ms: 30_000 }), reply: [oldest, 'p', 1] };
    }
    case 'complete':
      return { call: callFor('complete', queue, { id: await claimed(30_000), token: 1 }), reply: 1 };
    case 'retry': {
      const id = await claimed(30_000);
      return {
        call: callFor('retry', queue, { id, token: 1, delay_ms: 0, max_attempts: 3, error: 'e' }),
        reply: 'scheduled',
      };
    }
    case 'promote':
      await jobs.schedule(queue, minter.mint(), 'p', 0);
      return { call: callFor('promote', queue, { batch: 100 }), reply: 1 };
    case 'reap':
      await claimed(0);
      return { call: callFor('reap', queue, { batch: 100 }), reply: 1 };
  }
}

/** The key as it would be for another queue name (or the empty name), same type. */
function renamed(key: string, queue: string, name: string): Buffer {
  const prefix = `emq:{${queue}}:`;
  assert.ok(key.startsWith(prefix));
  return Buffer.from(`emq:{${name}}:${key.slice(prefix.length)}`);
}

function mutations(exact: Call, queue: string, random: () => number): Mutation[] {
  const transition = exact.transition as CoreTransition;
  const keys = exact.keys.map((key) => Buffer.from(key));
  const out: Mutation[] = [];
  const byte = () => Math.floor(random() * 256);
  const withKey = (i: number, key: Buffer): Call =>
    rawCall(
      transition,
      keys.map((k, j) => (j === i ? key : k)),
      exact.args,
    );
  keys.forEach((key, i) => {
    for (let p = 0; p <= key.length; p += 1) {
      const b = byte();
      out.push({
        kind: 'insert',
        what: `key ${i + 1}: insert 0x${b.toString(16)} at ${p}`,
        call: withKey(i, Buffer.concat([key.subarray(0, p), Buffer.from([b]), key.subarray(p)])),
      });
    }
    for (let p = 0; p < key.length; p += 1) {
      out.push({
        kind: 'delete',
        what: `key ${i + 1}: delete byte ${p}`,
        call: withKey(i, Buffer.concat([key.subarray(0, p), key.subarray(p + 1)])),
      });
      const replaced = Buffer.from(key);
      // Any byte but the one there: 1..255 added mod 256.
      replaced[p] = (key[p]! + 1 + Math.floor(random() * 255)) % 256;
      out.push({
        kind: 'replace',
        what: `key ${i + 1}: byte ${p} 0x${key[p]!.toString(16)} → 0x${replaced[p]!.toString(16)}`,
        call: withKey(i, replaced),
      });
    }
    const others = OTHER_QUEUES.filter((name) => name !== queue);
    const other = others[Math.floor(random() * others.length)]!;
    out.push({
      kind: 'other queue',
      what: `key ${i + 1} of queue ${other}`,
      call: withKey(i, renamed(exact.keys[i]!, queue, other)),
    });
    out.push({
      kind: 'empty name',
      what: `key ${i + 1} with the empty name`,
      call: withKey(i, renamed(exact.keys[i]!, queue, '')),
    });
    for (let j = i + 1; j < keys.length; j += 1) {
      const swapped = [...keys];
      [swapped[i], swapped[j]] = [keys[j]!, keys[i]!];
      out.push({
        kind: 'swap',
        what: `keys ${i + 1} and ${j + 1} swapped`,
        call: rawCall(transition, swapped, exact.args),
      });
    }
  });
  return out;
}

describe(`the mutation test (MUTATION_SEED=${SEED})`, () => {
  it('refuses every one-byte, swapped, foreign and empty-name key with its exact EMQKEY, writing nothing; accepts every exact call', async (t) => {
    const client: Valkey = box.standalone(0);
    const native = new NativeExecutor(client);
    const jobs = new Jobs(native);
    const random = seededRandom(SEED);
    const counts = new Map<string, number>();
    let total = 0;
    let exactAccepted = 0;

    for (const queue of QUEUES) {
      for (const transition of CORE_TRANSITIONS) {
        await freshNative(client);
        const { call: exact, reply } = await prepare(client, jobs, transition, queue);
        const cases = mutations(exact, queue, random);
        const before = await digest(client);
        // One pipeline per verb and queue. A refused call must write nothing; and within one verb's
        // calls every write only adds (rows, members, counts, attempts), none undoes another's, so one
        // digest after the pipeline equal to the one before means no call in it wrote.
        const verdicts = await native.runMany(cases.map((m) => m.call));
        assert.equal(verdicts.length, cases.length);
        cases.forEach((m, i) => {
          const where = `seed ${SEED}: ${exact.transition} on ${JSON.stringify(queue)}, ${m.what}`;
          const expected = expectedLayoutRefusal(transition, m.call.keys, m.call.args);
          assert.ok(expected?.startsWith('EMQKEY '), `${where}: the model accepts it`);
          const verdict = verdicts[i];
          assert.ok(verdict instanceof WireError, `${where}: accepted, replied ${JSON.stringify(verdict)}`);
          assert.equal(verdict.message, expected, where);
          const key = `${transition}/${m.kind}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
          total += 1;
        });
        assert.equal(
          await digest(client),
          before,
          `seed ${SEED}: ${transition} on ${queue}: a refusal wrote`,
        );

        // The exact call, on the same keyspace: accepted, with its reply, and it writes.
        assert.equal(expectedLayoutRefusal(transition, exact.keys, exact.args), null);
        const [verdict] = await native.runMany([exact]);
        assert.deepEqual(verdict, reply, `${transition} on ${queue}: the exact call`);
        assert.notEqual(await digest(client), before, `${transition} on ${queue}: the exact call wrote`);
        exactAccepted += 1;
      }
    }

    assert.equal(exactAccepted, CORE_TRANSITIONS.length * QUEUES.length);
    for (const transition of CORE_TRANSITIONS) {
      for (const kind of KINDS) {
        assert.ok((counts.get(`${transition}/${kind}`) ?? 0) > 0, `${transition}: no ${kind} mutation`);
      }
    }
    assert.ok(total >= 5000, `only ${total} mutations`);
    t.diagnostic(`${total} mutations refused with their exact EMQKEY; ${exactAccepted} exact calls accepted`);
  });
});
