// The connectors on a native node (trafikey loaded): the wire 6 connector's fence only reads — it refuses
// an identity that is not installed and a foreign one, and goes on once an operator installed it; a wire 4
// connector refuses a native node; and a native write on a keyspace a wire 4 connector claimed is refused.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import { installWireIdentity } from '../../server/connectors/install.ts';
import { connectWire4 } from '../../server/connectors/wire4.ts';
import { connectWire6 } from '../../server/connectors/wire6.ts';
import { callFor } from '../../server/contract/calls.ts';
import { NativeExecutor } from '../../server/executors/native.ts';
import { WireError } from '../../server/executors/wire-error.ts';
import {
  jobKey,
  mintJobId,
  queueKey,
  versionKey,
  WIRE4_IDENTITY,
  WIRE6_IDENTITY,
} from '../../server/contract/keyspace/index.ts';
import { dumpKeyspace } from '../../server/inspect/keyspace-dump.ts';
import { claimAsWire4, FOREIGN, useNativeSandbox } from './support.ts';

const box = useNativeSandbox({ cluster: false });

async function emptyDb(): Promise<{ db: number; url: string; admin: ReturnType<typeof box.standalone> }> {
  const { db, client: admin } = box.nextDatabase();
  await admin.flushdb();
  return { db, url: `${box.sandbox.standalone.url}/${db}`, admin };
}

const CONNECTORS = {
  'wire 4': { connect: connectWire4, identity: WIRE4_IDENTITY, other: WIRE6_IDENTITY },
  'wire 6': { connect: connectWire6, identity: WIRE6_IDENTITY, other: WIRE4_IDENTITY },
};

/** The connector refuses a keyspace holding the other wire's identity, naming both, and leaves it there. */
async function refusesTheOtherWire(
  wire: keyof typeof CONNECTORS,
  { url, admin }: { url: string; admin: Valkey },
): Promise<void> {
  const { connect, identity, other } = CONNECTORS[wire];
  await assert.rejects(connect(url), {
    name: 'FenceError',
    message: `the ${wire} connector refuses this server: expected wire identity "${identity}" at {emq}:version but found "${other}"`,
  });
  assert.equal(await admin.get(versionKey()), other);
}

describe('the wire 6 connector', () => {
  it('refuses a node where the identity is not installed, and claims nothing', async () => {
    const { url, admin } = await emptyDb();
    await assert.rejects(connectWire6(url), {
      name: 'FenceError',
      message:
        `the wire 6 connector refuses this server: wire identity "${WIRE6_IDENTITY}" is not installed ` +
        'at {emq}:version (found none); install it administratively first',
    });
    assert.equal(await admin.dbsize(), 0);
  });

  it('refuses a foreign identity (echomq:4.0.0), naming found and expected, and changes nothing', async () => {
    const db = await emptyDb();
    await claimAsWire4(db.admin);
    await refusesTheOtherWire('wire 6', db);
    assert.equal(await db.admin.dbsize(), 1);
  });

  it('goes on after installWireIdentity, reading only, and runs the verbs on either executor', async () => {
    const { url, admin } = await emptyDb();
    assert.deepEqual(await installWireIdentity(admin), {
      identity: WIRE6_IDENTITY,
      previous: null,
      changed: true,
    });
    const connection = await connectWire6(url);
    try {
      assert.equal(connection.fence.outcome, 'verified');
      assert.deepEqual(connection.fence.steps, [{ command: 'GET {emq}:version', reply: WIRE6_IDENTITY }]);
      // Enqueued natively, claimed by script, completed natively: one keyspace, two executors.
      const id = mintJobId();
      assert.equal(await connection.jobs.enqueue('orders', id, 'both'), 1);
      assert.deepEqual(await connection.scripted.claim('orders', 30_000), {
        id,
        payload: 'both',
        attempts: 1,
      });
      assert.equal(await connection.jobs.complete('orders', id, 1), 1);
      assert.equal(await admin.hget(queueKey('orders', 'metrics:completed'), 'count'), '1');
      assert.equal(await admin.get(versionKey()), WIRE6_IDENTITY);
    } finally {
      await connection.close();
    }
  });

  it('installs idempotently, and will not overwrite a foreign identity unless told to', async () => {
    const { url, admin } = await emptyDb();
    await claimAsWire4(admin);
    await assert.rejects(installWireIdentity(admin), /already holds "echomq:4\.0\.0", not "echomq:6\.0\.0"/);
    assert.equal(await admin.get(versionKey()), WIRE4_IDENTITY);
    assert.deepEqual(await installWireIdentity(admin, { replace: true }), {
      identity: WIRE6_IDENTITY,
      previous: WIRE4_IDENTITY,
      changed: true,
    });
    assert.deepEqual(await installWireIdentity(admin), {
      identity: WIRE6_IDENTITY,
      previous: WIRE6_IDENTITY,
      changed: false,
    });
    await (await connectWire6(url)).close();
  });
});

describe('the wire 4 connector against a native node', () => {
  it('refuses a node with the native identity installed, and does not claim over it', async () => {
    const db = await emptyDb();
    await installWireIdentity(db.admin);
    await refusesTheOtherWire('wire 4', db);
  });

  it('claims an empty keyspace; native writes there are then refused with the exact EMQWIRE, writing nothing', async () => {
    const { url, admin } = await emptyDb();
    const wire4 = await connectWire4(url);
    try {
      assert.equal(wire4.fence.outcome, 'claimed');
      const held = mintJobId();
      await wire4.jobs.enqueue('orders', held, 'wire 4');
      await wire4.jobs.claim('orders', 30_000);
      await wire4.jobs.enqueue('orders', mintJobId(), 'wire 4');

      const native = new NativeExecutor(admin);
      const before = await dumpKeyspace(admin);
      const calls = [
        callFor('enqueue', 'orders', { id: mintJobId(), payload: 'native' }),
        callFor('schedule', 'orders', { id: mintJobId(), payload: 'native', run_at_ms: 0 }),
        callFor('claim', 'orders', { lease_ms: 1000 }),
        callFor('complete', 'orders', { id: held, token: 1 }),
        callFor('retry', 'orders', { id: held, token: 1, delay_ms: 0, max_attempts: 3, error: 'e' }),
        callFor('promote', 'orders', { batch: 10 }),
        callFor('reap', 'orders', { batch: 10 }),
      ];
      for (const verdict of await native.runMany(calls)) {
        assert.ok(verdict instanceof WireError);
        assert.equal(verdict.message, FOREIGN);
      }
      assert.deepEqual(await dumpKeyspace(admin), before);
      // The wire 4 speaker itself goes on, on its scripts.
      assert.equal(await wire4.jobs.complete('orders', held, 1), 1);
      assert.equal(await admin.exists(jobKey('orders', held)), 0);
    } finally {
      await wire4.close();
    }
  });
});
