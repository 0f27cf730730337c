// The error catalogue (server/contract/catalogue/error-codes.ts) is the one place a reply of the native
// module or of a Lua script is written; the Rust and the Lua build the same bytes, and this file holds
// them to it. Each row the module or a script answers is provoked on a real valkey-server with trafikey
// loaded (its cluster for the cluster-mode refusal), through the executor that answers it, and the reply
// must be the row's text with the call's values filled in — by every answerer the row names. The shared
// layout vectors' refusals, as the module answers them, are each a text of its rows.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import { catalogueRow, catalogueText } from '../../server/contract/catalogue/catalogue-text.ts';
import {
  ERROR_CODES,
  type Code,
  type ErrorCode,
  type VariantOf,
} from '../../server/contract/catalogue/error-codes.ts';
import { callFor } from '../../server/contract/calls.ts';
import type { Executor } from '../../server/executors/executor.ts';
import { Jobs } from '../../server/executors/jobs.ts';
import { NativeExecutor } from '../../server/executors/native.ts';
import { ScriptedExecutor } from '../../server/executors/scripted.ts';
import { scriptFor } from '../../server/executors/scripts.ts';
import type { Call, TransitionName } from '../../server/contract/transitions.ts';
import { jobKey, queueKey, versionKey, WIRE4_IDENTITY } from '../../server/contract/keyspace/index.ts';
import { rowsFor } from '../support/catalogue-rows.ts';
import { claimAsWire4, freshNative, layoutCases, transitionOf, useNativeSandbox } from './support.ts';

const box = useNativeSandbox();

type Answerer = 'module' | 'script';

/** A fresh database with the wire identity installed, and the executor of the answerer asked. */
interface Target {
  client: Valkey;
  executor: Executor;
  jobs: Jobs;
}

interface Case {
  row: ErrorCode;
  /** The row's text with this case's values filled in: what the reply must be, byte for byte. */
  text: string;
  by: readonly Answerer[];
  /** Provokes the error on the target and returns the reply's message. */
  provoke(target: Target): Promise<string>;
}

/** A case for the row of `code` (and `variant`), whose reply is its text with `values` filled in. */
function row<C extends Code>(
  code: C,
  values: Record<string, string | number>,
  variant: VariantOf<C> | undefined,
  by: readonly Answerer[],
  provoke: (target: Target) => Promise<unknown>,
): Case {
  return {
    row: catalogueRow(code, variant),
    text: catalogueText(code, values, variant),
    by,
    provoke: async (target) => refusal(provoke(target)),
  };
}

/** The message of the error `run` is refused with. */
async function refusal(run: Promise<unknown>): Promise<string> {
  try {
    const reply = await run;
    assert.fail(`accepted, replying ${JSON.stringify(reply)}`);
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    return (error as Error).message;
  }
}

const QUEUE = 'orders';
const BOTH = ['module', 'script'] as const;
const MODULE = ['module'] as const;
const SCRIPT = ['script'] as const;
const OTHER_KIND = 'USR0KHTOWnGLuC';
const ID = 'JOB0Nb1VTbfnu4';
const claim = callFor('claim', QUEUE, { lease_ms: 30_000 });
const enqueue = callFor('enqueue', QUEUE, { id: ID, payload: 'x' });

/** A pending job whose row's attempts holds `attempts`, claimed: the claim adds one to it. */
async function claimWithAttempts(target: Target, attempts: string): Promise<unknown> {
  await target.jobs.enqueue(QUEUE, ID, 'x');
  await target.client.hset(jobKey(QUEUE, ID), 'attempts', attempts);
  return target.executor.run(claim);
}

/** A key enqueue adds to holds a string. */
async function wrongType({ client, executor }: Target): Promise<unknown> {
  await client.set(queueKey(QUEUE, 'pending'), 'not a sorted set');
  return executor.run(enqueue);
}

/** A script's sha, and the line of its assembled source where it first calls `command`. */
function where(transition: TransitionName, command: string): { sha: string; line: number } {
  const { sha, source } = scriptFor(transition);
  const line = source.split('\n').findIndex((text) => text.includes(`redis.call("${command}"`));
  assert.ok(line >= 0, `${transition} calls ${command}`);
  return { sha, line: line + 1 };
}

/** The call with key `position` (1-based) replaced. */
function withKey(call: Call, position: number, key: string): Call {
  return { ...call, keys: call.keys.map((k, i) => (i === position - 1 ? key : k)) };
}

const CASES: Case[] = [
  row('EMQKIND', { id: OTHER_KIND }, undefined, BOTH, ({ executor }) =>
    executor.run(callFor('enqueue', QUEUE, { id: OTHER_KIND, payload: 'x' })),
  ),
  row('EMQSTALE', { attempts: '1', id: ID, token: '2' }, undefined, BOTH, async ({ executor, jobs }) => {
    await jobs.enqueue(QUEUE, ID, 'x');
    await jobs.claim(QUEUE, 30_000);
    return executor.run(callFor('complete', QUEUE, { id: ID, token: 2 }));
  }),
  row('EMQKEY', { VERB: 'CLAIM', n: 3, m: 2 }, 'count', MODULE, ({ executor }) =>
    executor.run({ ...claim, keys: claim.keys.slice(0, -1) }),
  ),
  // numkeys negative: the module reads it whole, as the Rust tests' mirror of the layout does.
  row('EMQKEY', { VERB: 'RETRY', n: 5, m: -1 }, 'count', MODULE, ({ client }) =>
    client.call('EMQ.RETRY', -1, 'x'),
  ),
  row(
    'EMQKEY',
    { pos: 2, offset: 5, expected: queueKey(QUEUE, 'active'), found: queueKey('fills', 'active') },
    'differs',
    MODULE,
    ({ executor }) => executor.run(withKey(claim, 2, queueKey('fills', 'active'))),
  ),
  row(
    'EMQKEY',
    { offset: 11, queue: '<queue>', type: `job:${ID}`, found: 'emq:{orders' },
    'unparsed',
    MODULE,
    ({ executor }) => executor.run(withKey(enqueue, 1, 'emq:{orders')),
  ),
  row('EMQKEY', {}, 'empty-name', MODULE, ({ executor }) =>
    executor.run({ ...claim, keys: claim.keys.map((key) => key.replace(`{${QUEUE}}`, '{}')) }),
  ),
  // The cluster's owner of the slot answers (iovalkey's Cluster follows MOVED to it).
  row('EMQWIRE', {}, 'cluster', MODULE, () => new NativeExecutor(box.cluster()).run(enqueue)),
  row('EMQWIRE', {}, 'not-installed', MODULE, async ({ client, executor }) => {
    await client.del(versionKey());
    return executor.run(enqueue);
  }),
  row('EMQWIRE', { value: WIRE4_IDENTITY }, 'foreign', MODULE, async ({ client, executor }) => {
    await claimAsWire4(client);
    return executor.run(enqueue);
  }),
  row('EMQWIRE', { type: 'hash' }, 'not-a-string', MODULE, async ({ client, executor }) => {
    await client.del(versionKey());
    await client.hset(versionKey(), 'v', 'x');
    return executor.run(enqueue);
  }),
  row('ERR', { value: 'three' }, 'numkeys', MODULE, ({ client }) =>
    client.call('EMQ.CLAIM', 'three', ...claim.keys, ...claim.args),
  ),
  // Sent in lower case: the reply names the command as it is registered.
  row('ERR', { VERB: 'CLAIM' }, 'arity', MODULE, ({ client }) =>
    client.call('emq.claim', 3, ...claim.keys, ...claim.args, 'extra'),
  ),
  row('ERR', { name: 'lease_ms', value: '1e3' }, 'integer', MODULE, ({ executor }) =>
    executor.run({ ...claim, args: ['1e3'] }),
  ),
  row('WRONGTYPE', {}, 'refused', MODULE, wrongType),
  row('ERR', {}, 'hash-value', MODULE, (target) => claimWithAttempts(target, 'many')),
  row('ERR', {}, 'overflow', MODULE, (target) => claimWithAttempts(target, '9223372036854775807')),
  // A script meets them at the command, and the server says where: enqueue's ZADD, claim's HINCRBY.
  row('WRONGTYPE', where('enqueue', 'ZADD'), 'in-script', SCRIPT, wrongType),
  row('ERR', where('claim', 'HINCRBY'), 'hash-value-in-script', SCRIPT, (target) =>
    claimWithAttempts(target, 'many'),
  ),
  row('ERR', where('claim', 'HINCRBY'), 'overflow-in-script', SCRIPT, (target) =>
    claimWithAttempts(target, '9223372036854775807'),
  ),
];

async function target(by: Answerer): Promise<Target> {
  const { client } = box.nextDatabase();
  await freshNative(client);
  const executor = by === 'module' ? new NativeExecutor(client) : new ScriptedExecutor(client);
  return { client, executor, jobs: new Jobs(executor) };
}

const name = (row: ErrorCode) => `${row.code}${row.variant ? ` (${row.variant})` : ''}`;

describe('each reply of the module and the scripts is its catalogue row, filled in', () => {
  for (const c of CASES) {
    for (const by of c.by) {
      it(`${by}: ${name(c.row)} — ${c.text}`, async () => {
        assert.equal(await c.provoke(await target(by)), c.text);
      });
    }
  }

  it('provokes every row the module or a script answers, by each answerer the row names', () => {
    for (const row of ERROR_CODES) {
      const answerers = row.by.filter((by): by is Answerer => by === 'module' || by === 'script');
      const provoked = new Set(CASES.filter((c) => c.row === row).flatMap((c) => c.by));
      assert.deepEqual([...provoked].sort(), answerers.sort(), name(row));
    }
  });
});

describe('the shared layout vectors (the ones cargo test reads)', () => {
  it('each refusal, as the loaded module answers it, is a text of the module’s rows', async () => {
    const { executor } = await target('module');
    let refused = 0;
    for (const vector of layoutCases()) {
      if (vector.error === null) continue;
      const call: Call = { transition: transitionOf(vector.verb), keys: vector.keys, args: vector.args };
      const message = await refusal(executor.run(call));
      // A key 1 that does not parse at byte 0 also reads as "key 1 differs": one text, two rows.
      const rows = rowsFor(message.split(' ', 1)[0]!, message);
      assert.ok(rows.length >= 1, `${vector.note}: no row for ${message}`);
      for (const row of rows) assert.ok(row.by.includes('module'), `${vector.note}: ${name(row)}`);
      refused += 1;
    }
    assert.ok(refused >= 10, `the vectors hold refusals (${refused})`);
  });
});
