// Every refusal of the native module, with its exact message from docs/wire.md, on a populated keyspace:
// the keyspace (every key, type, field, member and score) is identical before and after each one, while
// the same call with the refusal's cause removed is accepted and writes. Also the fixture's `layout`
// cases, the very vectors `cargo test` reads, run here against the loaded module.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import { callFor } from '../../server/contract/calls.ts';
import { Jobs } from '../../server/executors/jobs.ts';
import { NativeExecutor } from '../../server/executors/native.ts';
import { CORE_TRANSITIONS, type Call, type CoreTransition } from '../../server/contract/transitions.ts';
import { WireError } from '../../server/executors/wire-error.ts';
import {
  jobKey,
  mintJobId,
  queueKey,
  versionKey,
  WIRE6_IDENTITY,
} from '../../server/contract/keyspace/index.ts';
import { dumpKeyspace } from '../../server/inspect/keyspace-dump.ts';
import { rowsFor } from '../support/catalogue-rows.ts';
import {
  claimAsWire4,
  expectedLayoutRefusal,
  FOREIGN,
  freshNative,
  layoutCases,
  NOT_INSTALLED,
  transitionOf,
  useNativeSandbox,
  VERB_OF,
} from './support.ts';

const box = useNativeSandbox({ cluster: false });

interface World {
  client: Valkey;
  native: NativeExecutor;
  /** For each verb, a call that is accepted on this keyspace and writes. */
  valid: Record<CoreTransition, Call>;
  /** The claimed job whose token is 1. */
  held: string;
  /** The call is refused with exactly `message`, and the whole keyspace is as it was. */
  refuses(call: Call, message: string): Promise<void>;
  /** The call is accepted, and it writes (so "nothing written" above is not vacuous). */
  accepts(call: Call): Promise<void>;
}

/**
 * A queue with work for every verb: two pending ids, a live claim (token 1), an expired claim (lease 0),
 * and a due scheduled id. Every verb's `valid` call would change something here.
 */
async function populated(queue = 'orders'): Promise<World> {
  const { client } = box.nextDatabase();
  await freshNative(client);
  const native = new NativeExecutor(client);
  const jobs = new Jobs(native);
  const ids = [mintJobId(), mintJobId(), mintJobId(), mintJobId()];
  for (const id of ids) await jobs.enqueue(queue, id, `payload of ${id}`);
  await jobs.claim(queue, 0);
  const held = (await jobs.claim(queue, 60_000))!.id;
  await jobs.schedule(queue, mintJobId(), 'due', 0);
  const valid: Record<CoreTransition, Call> = {
    enqueue: callFor('enqueue', queue, { id: mintJobId(), payload: 'new' }),
    schedule: callFor('schedule', queue, { id: mintJobId(), payload: 'new', run_at_ms: 0 }),
    claim: callFor('claim', queue, { lease_ms: 30_000 }),
    complete: callFor('complete', queue, { id: held, token: 1 }),
    retry: callFor('retry', queue, { id: held, token: 1, delay_ms: 1000, max_attempts: 3, error: 'boom' }),
    promote: callFor('promote', queue, { batch: 10 }),
    reap: callFor('reap', queue, { batch: 10 }),
  };
  return {
    client,
    native,
    valid,
    held,
    async refuses(call, message) {
      const before = await dumpKeyspace(client);
      await assert.rejects(native.run(call), (error: unknown) => {
        assert.ok(error instanceof WireError, `a WireError, not ${String(error)}`);
        assert.equal(error.message, message);
        // and the message is a text of the catalogue's module rows (server/contract/catalogue/error-codes.ts)
        const rows = rowsFor(error.errorClass, message);
        assert.ok(rows.length > 0 && rows.every((row) => row.by.includes('module')), message);
        return true;
      });
      assert.deepEqual(await dumpKeyspace(client), before, `${call.transition}: the refusal wrote`);
    },
    async accepts(call) {
      const before = await dumpKeyspace(client);
      const reply = await native.run(call);
      assert.notEqual(reply, 0, `${call.transition} did its work`);
      assert.notDeepEqual(await dumpKeyspace(client), before, `${call.transition} wrote`);
    },
  };
}

/** The call with its key at `position` (1-based, as the refusals count keys) replaced by `key`. */
function withKey(call: Call, position: number, key: string): Call {
  return { ...call, keys: call.keys.map((k, i) => (i === position - 1 ? key : k)) };
}

describe('the key count', () => {
  it('refuses too few and too many keys for every verb, by the verb and both counts', async () => {
    const world = await populated();
    for (const transition of CORE_TRANSITIONS) {
      const call = world.valid[transition];
      const n = call.keys.length;
      const verb = VERB_OF[transition];
      await world.refuses(
        { ...call, keys: call.keys.slice(0, -1) },
        `EMQKEY ${verb} expects ${n} keys but found ${n - 1}`,
      );
      await world.refuses(
        { ...call, keys: [...call.keys, queueKey('orders', 'dead')] },
        `EMQKEY ${verb} expects ${n} keys but found ${n + 1}`,
      );
    }
  });

  it('refuses a numkeys that is not an integer, and the wrong number of arguments', async () => {
    const world = await populated();
    const before = await dumpKeyspace(world.client);
    const { keys, args } = world.valid.claim;
    await assert.rejects(world.client.call('EMQ.CLAIM', 'three', ...keys, ...args), {
      message: "ERR numkeys must be an integer but found 'three'",
    });
    await assert.rejects(world.client.call('emq.claim', 3, ...keys, ...args, 'extra'), {
      message: "ERR wrong number of arguments for 'EMQ.CLAIM' command",
    });
    await assert.rejects(world.client.call('EMQ.ENQUEUE', 2, ...world.valid.enqueue.keys), {
      message: "ERR wrong number of arguments for 'EMQ.ENQUEUE' command",
    });
    assert.deepEqual(await dumpKeyspace(world.client), before);
  });
});

describe('the layout', () => {
  it('refuses, for every verb and every position, a key of another queue, naming the position, offset and expected key', async () => {
    const world = await populated();
    for (const transition of CORE_TRANSITIONS) {
      const call = world.valid[transition];
      for (let position = 2; position <= call.keys.length; position += 1) {
        const expected = call.keys[position - 1]!;
        const found = expected.replace('{orders}', '{fills}');
        await world.refuses(
          withKey(call, position, found),
          `EMQKEY key ${position} differs at byte 5: expected '${expected}' but found '${found}'`,
        );
      }
    }
  });

  it('refuses key 1 of another queue at key 2, since key 1 names the queue', async () => {
    const world = await populated();
    await world.refuses(
      withKey(world.valid.claim, 1, 'emq:{fills}:pending'),
      "EMQKEY key 2 differs at byte 5: expected 'emq:{fills}:active' but found 'emq:{orders}:active'",
    );
  });

  it('refuses a row that is not the id argument’s row, and a row base that is a row', async () => {
    const world = await populated();
    const other = mintJobId();
    const complete = world.valid.complete;
    const row = jobKey('orders', world.held);
    const offset = [...row].findIndex((ch, i) => ch !== jobKey('orders', other)[i]);
    await world.refuses(
      withKey(complete, 2, jobKey('orders', other)),
      `EMQKEY key 2 differs at byte ${offset}: expected '${row}' but found '${jobKey('orders', other)}'`,
    );
    const reap = world.valid.reap;
    await world.refuses(
      withKey(reap, 3, row),
      `EMQKEY key 3 differs at byte 17: expected 'emq:{orders}:job:' but found '${row}'`,
    );
  });

  it('refuses key 1 that does not parse, with the literal <queue> in the expected key', async () => {
    const world = await populated();
    const enqueue = world.valid.enqueue;
    const id = enqueue.args[0]!;
    await world.refuses(
      withKey(enqueue, 1, 'emq:{orders'),
      `EMQKEY key 1 differs at byte 11: expected 'emq:{<queue>}:job:${id}' but found 'emq:{orders'`,
    );
    await world.refuses(
      withKey(enqueue, 1, 'EMQ:{orders}:job:' + id),
      `EMQKEY key 1 differs at byte 0: expected 'emq:{<queue>}:job:${id}' but found 'EMQ:{orders}:job:${id}'`,
    );
    await world.refuses(
      withKey(world.valid.promote, 1, 'emq'),
      "EMQKEY key 1 differs at byte 3: expected 'emq:{<queue>}:schedule' but found 'emq'",
    );
  });

  it('refuses the empty queue name for every verb', async () => {
    const world = await populated();
    for (const transition of CORE_TRANSITIONS) {
      const call = world.valid[transition];
      await world.refuses(
        { ...call, keys: call.keys.map((key) => key.replace('{orders}', '{}')) },
        "EMQKEY key 1 has an empty queue name at byte 5: expected at least one byte between '{' and '}'",
      );
    }
  });

  it('escapes non-ASCII bytes, quote, backslash and NUL in its messages', async () => {
    const world = await populated();
    const call = world.valid.claim;
    await world.refuses(
      { ...call, keys: ["emq:{a'b\\c\u0000ç}:pending", "emq:{a'b\\c\u0000c}:active", 'emq:{x}:job:'] },
      "EMQKEY key 2 differs at byte 11: expected 'emq:{a\\x27b\\x5cc\\x00\\xc3\\xa7}:active' but found 'emq:{a\\x27b\\x5cc\\x00c}:active'",
    );
  });

  it('does not run the admission check: a name holding { or NUL passes when every key carries it', async () => {
    const world = await populated();
    for (const queue of ['a{b', 'nul\u0000inside']) {
      const id = mintJobId();
      const keys = [`emq:{${queue}}:job:${id}`, `emq:{${queue}}:pending`];
      assert.equal(await world.native.run({ transition: 'enqueue', keys, args: [id, 'x'] }), 1, queue);
      assert.deepEqual(await world.client.zrange(keys[1]!, 0, -1), [id]);
    }
  });
});

describe('EMQKIND and EMQSTALE', () => {
  it('refuses an id that is not of kind JOB, on enqueue and schedule', async () => {
    const world = await populated();
    const id = 'USR0KHTOWnGLuC';
    await world.refuses(
      callFor('enqueue', 'orders', { id, payload: 'x' }),
      `EMQKIND expected an id of kind 'JOB' but found '${id}'`,
    );
    await world.refuses(
      callFor('schedule', 'orders', { id, payload: 'x', run_at_ms: 0 }),
      `EMQKIND expected an id of kind 'JOB' but found '${id}'`,
    );
  });

  it('refuses a token that is not the row’s attempts, on complete and retry', async () => {
    const world = await populated();
    const { held } = world;
    await world.refuses(
      callFor('complete', 'orders', { id: held, token: 2 }),
      `EMQSTALE expected token '1' for '${held}' but found '2'`,
    );
    await world.refuses(
      callFor('retry', 'orders', { id: held, token: '01', delay_ms: 0, max_attempts: 1, error: 'e' }),
      `EMQSTALE expected token '1' for '${held}' but found '01'`,
    );
    await world.client.hdel(jobKey('orders', held), 'attempts');
    await world.refuses(
      callFor('complete', 'orders', { id: held, token: 1 }),
      `EMQSTALE expected token '' for '${held}' but found '1'`,
    );
  });
});

describe('the wire identity', () => {
  it('refuses every verb when {emq}:version is absent, as not installed', async () => {
    const world = await populated();
    await world.client.del(versionKey());
    for (const transition of CORE_TRANSITIONS) await world.refuses(world.valid[transition], NOT_INSTALLED);
  });

  it('refuses every verb on a foreign identity, naming found and expected', async () => {
    const world = await populated();
    await claimAsWire4(world.client);
    for (const transition of CORE_TRANSITIONS) await world.refuses(world.valid[transition], FOREIGN);
  });

  it('refuses an identity that is not a string, naming its type', async () => {
    const world = await populated();
    await world.client.del(versionKey());
    await world.client.hset(versionKey(), 'v', WIRE6_IDENTITY);
    await world.refuses(
      world.valid.enqueue,
      `EMQWIRE expected wire identity '${WIRE6_IDENTITY}' at '{emq}:version' but found a hash`,
    );
  });

  it('accepts every verb once the identity is installed again, and each one writes', async () => {
    const world = await populated();
    await claimAsWire4(world.client);
    await world.refuses(world.valid.enqueue, FOREIGN);
    await world.client.set(versionKey(), WIRE6_IDENTITY);
    for (const transition of CORE_TRANSITIONS) {
      // complete and retry share the held claim; give retry one of its own.
      if (transition === 'retry') {
        const { id, attempts } = (await new Jobs(world.native).claim('orders', 60_000))!;
        await world.accepts(
          callFor('retry', 'orders', { id, token: attempts, delay_ms: 0, max_attempts: 3, error: 'e' }),
        );
      } else {
        await world.accepts(world.valid[transition]);
      }
    }
  });
});

describe('the check order: key count → layout → server mode → identity → transition', () => {
  it('answers the earliest failing check', async () => {
    const world = await populated();
    await claimAsWire4(world.client);
    const enqueue = callFor('enqueue', 'orders', { id: 'USR0KHTOWnGLuC', payload: 'x' });
    // Wrong count and wrong layout and foreign identity and wrong kind: the count speaks.
    await world.refuses({ ...enqueue, keys: ['emq:{}:x'] }, 'EMQKEY EMQ.ENQUEUE expects 2 keys but found 1');
    // Wrong layout, foreign identity, wrong kind: the layout speaks.
    await world.refuses(
      withKey(enqueue, 2, 'emq:{orders}:active'),
      "EMQKEY key 2 differs at byte 13: expected 'emq:{orders}:pending' but found 'emq:{orders}:active'",
    );
    // Foreign identity, wrong kind: the identity speaks.
    await world.refuses(enqueue, FOREIGN);
    // A stale token behind a foreign identity: the identity speaks.
    await world.refuses(callFor('complete', 'orders', { id: world.held, token: 9 }), FOREIGN);
  });
});

describe('the fixture’s layout cases (the vectors cargo test reads)', () => {
  const cases = layoutCases();

  it('has the 18 cases, and the test model of the layout check names each one’s exact refusal', () => {
    assert.equal(cases.length, 18);
    for (const c of cases) {
      assert.equal(expectedLayoutRefusal(transitionOf(c.verb), c.keys, c.args), c.error, c.note);
    }
  });

  it('gets each exact refusal from the loaded module, writing nothing; the valid ones are accepted', async () => {
    const world = await populated();
    for (const c of cases) {
      const call: Call = { transition: transitionOf(c.verb), keys: c.keys, args: c.args };
      if (c.error !== null) {
        await world.refuses(call, c.error);
        continue;
      }
      const reply = await world.native.run(call);
      if (c.verb === 'EMQ.CLAIM') {
        // orders has two pending jobs in this world: the claim takes the oldest.
        assert.ok(Array.isArray(reply) && reply[2] === 1, c.note);
      } else if (c.verb === 'EMQ.RETRY') {
        assert.equal(reply, 0, `${c.note}: no such row on that queue`);
      } else {
        assert.equal(reply, 1, c.note);
        assert.equal(await world.client.hget(c.keys[0]!, 'state'), 'pending', c.note);
        assert.deepEqual(await world.client.zrange(c.keys[1]!, 0, -1), [c.args[0]], c.note);
      }
    }
  });
});
