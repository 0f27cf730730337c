// Each TIMEOUT says what happened to what its run held, true of that kind of run: a run kept past the
// API's bound while it waits — for a keyspace (every one taken by this test), or for its slot's turn
// (held by this test) — is answered with its own kind's text, and only a run that leased a keyspace is
// told of keyspaces. (It said "its keyspace was flushed" to runs that lease none.)

process.env.RUN_DEADLINE_MS = '500'; // read when the API's module loads: answered TIMEOUT at 1.5 s

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { ERROR_CODES } from '../../server/contract/catalogue/error-codes.ts';
import { textPattern } from '../support/catalogue-rows.ts';
import { slotLock } from '../../server/explorer/cluster-run.ts';
import { explorerRuntime } from '../../server/explorer/runtime.ts';
import { leaseKey } from '../../server/explorer/keyspace-pool.ts';
import { queueKey, slot } from '../../server/contract/keyspace/index.ts';
import { useApi } from '../support/api.ts';

const api = useApi();

/** `work` while this test holds `lock`, given back after. */
async function holding<T>(lock: string, work: () => Promise<T>): Promise<T> {
  const runtime = await explorerRuntime();
  let release: () => void = () => {};
  let held: () => void = () => {};
  const taken = new Promise<void>((resolve) => (held = resolve));
  const holder = runtime.locks.with(lock, () => {
    held();
    return new Promise<void>((resolve) => (release = resolve));
  });
  await taken;
  try {
    return await work();
  } finally {
    release();
    await holder;
  }
}

/** The TIMEOUT row a message is, by its variant. */
function variantOf(message: string): string | undefined {
  const rows = ERROR_CODES.filter((row) => row.code === 'TIMEOUT' && textPattern(row.text).test(message));
  assert.equal(rows.length, 1, `one TIMEOUT row: ${message}`);
  return rows[0]!.variant;
}

describe('a TIMEOUT says what happened to what the run held', () => {
  it('route, waiting for its queue’s slot: its queue’s keys on the cluster, never a keyspace', async () => {
    const answer = await holding(slotLock(slot(queueKey('orders', 'pending'))), () =>
      api.post('route', { queue: 'orders' }),
    );
    assert.equal(answer.status, 503, JSON.stringify(answer.body));
    assert.equal(answer.body.code, 'TIMEOUT');
    assert.equal(variantOf(answer.body.detail), 'queue');
    assert.doesNotMatch(answer.body.detail, /keyspace/);
    assert.match(answer.body.detail, /its queue’s keys on the cluster are deleted in a turn of their own/);
  });

  it('the console on the cluster and the slot experiment, waiting for a slot’s turn: they wrote nothing', async () => {
    const [console, slotRun] = await holding(slotLock(slot(queueKey('orders', 'pending'))), () =>
      Promise.all([
        api.post('console', { node: 'cluster', lines: ['EXISTS emq:{orders}:pending'] }),
        api.post('slot', { queue: 'orders', other: 'fills' }),
      ]),
    );
    for (const answer of [console, slotRun]) {
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'TIMEOUT');
      assert.equal(variantOf(answer.body.detail), 'reads');
      assert.doesNotMatch(answer.body.detail, /keyspace/);
    }
  });

  it('keys, waiting for a keyspace while every one is leased: any keyspace it leased, never "was flushed"', async () => {
    // Every lease taken as if by another process (the pool's own keys, written as the admin): the
    // run waits in line for one past the API's bound.
    const runtime = await explorerRuntime();
    const admin = new Valkey(api.sandbox.standalone.url);
    const leases = Array.from({ length: runtime.pool.size }, (_, i) => leaseKey(i + 1));
    try {
      for (const key of leases) await admin.set(key, 'another:process:0:1', 'PX', 20_000);
      const answer = await api.post('keys', { queue: 'orders' });
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'TIMEOUT');
      assert.equal(variantOf(answer.body.detail), 'leased');
      assert.doesNotMatch(answer.body.detail, /its keyspace was flushed/);
    } finally {
      await admin.del(...leases);
      admin.disconnect();
    }
  });
});
