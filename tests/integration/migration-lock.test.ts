// The migration turn's lock, on a real cluster: held past its lifetime because its holder renews it
// (compare-and-expire with its token), so a long migration never shares the sandbox with another; a
// second taker waits its bound and is told busy (LockBusyError, the API's 503 BUSY); a holder whose key
// was taken over learns it (held() false); the key is gone once the holder lets go. And CLUSTER NODES
// read as the check reads it: open slots on the node's own line, ranges, single slots.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseClusterNodes } from '../../server/sandbox/cluster-check.ts';
import { LockBusyError, RunLocks } from '../../server/cluster/run-lock.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ native: false });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the migration lock', () => {
  it('outlives its lifetime while held, keeps a second taker out, and is gone after', async () => {
    const admin = box.cluster();
    const locks = new RunLocks(admin, 300);
    const other = new RunLocks(admin, 300);
    let busy: unknown;
    await locks.with('test-turn', async (turn) => {
      await sleep(1200); // four lifetimes
      assert.equal(turn.held(), true);
      assert.equal(await admin.exists(RunLocks.key('test-turn')), 1, 'renewed, not expired');
      busy = await other.with('test-turn', async () => 'ran', 400).catch((error) => error);
    });
    assert.ok(busy instanceof LockBusyError, String(busy));
    assert.match((busy as Error).message, /^test-turn is busy with other runs; waited 400 ms/);
    assert.equal(await admin.exists(RunLocks.key('test-turn')), 0);
    assert.equal(await other.with('test-turn', async () => 'ran', 400), 'ran');
  });

  it('tells its holder when the key was taken over', async () => {
    const admin = box.cluster();
    const locks = new RunLocks(admin, 300);
    await locks.with('stolen-turn', async (turn) => {
      await admin.set(RunLocks.key('stolen-turn'), 'someone else', 'PX', 5000);
      await sleep(400); // past a renewal
      assert.equal(turn.held(), false);
    });
    // Its release did not delete the other holder's key.
    assert.equal(await admin.get(RunLocks.key('stolen-turn')), 'someone else');
    await admin.del(RunLocks.key('stolen-turn'));
  });
});

describe('a lock whose holder died', () => {
  it('is taken over at once on the same host, not after its lifetime; a live holder is never', async () => {
    const admin = box.cluster();
    const locks = new RunLocks(admin, 20_000);
    const { hostname } = await import('node:os');
    // A pid that runs no process: the highest pid Linux hands out, plus one.
    const dead = `${hostname()}:4194305:deadholdertoken`;
    await admin.set(RunLocks.key('dead-turn'), dead, 'PX', 20_000);
    const started = Date.now();
    assert.equal(await locks.with('dead-turn', async () => 'ran', 2000), 'ran');
    assert.ok(Date.now() - started < 2000, 'taken over without waiting out the 20 s');
    // A holder that runs (this very process) keeps its turn: the taker waits its bound, then is busy.
    const alive = `${hostname()}:${process.pid}:liveholdertoken`;
    await admin.set(RunLocks.key('live-turn'), alive, 'PX', 20_000);
    const busy = await locks.with('live-turn', async () => 'ran', 300).catch((error) => error);
    assert.ok(busy instanceof LockBusyError);
    assert.equal(await admin.get(RunLocks.key('live-turn')), alive);
    await admin.del(RunLocks.key('live-turn'));
  });
});

describe('CLUSTER NODES as the check reads it', () => {
  it('reads ranges, single slots, and the open slots on the node’s own line', () => {
    const id = (c: string) => c.repeat(40);
    const lines = parseClusterNodes(
      [
        `${id('a')} 127.0.0.1:7000@17000 myself,master - 0 0 3 connected 0-104 105 106-5460 [105->-${id('b')}] [200-<-${id('c')}]`,
        `${id('b')} 127.0.0.1:7001@17001,node-b.example master - 0 1 2 connected 5461-10922`,
        `${id('c')} 127.0.0.1:7002@17002 master - 0 1 0 connected`,
        '',
      ].join('\n'),
    );
    assert.equal(lines.length, 3);
    assert.deepEqual(lines[0]!.slots, [
      [0, 104],
      [105, 105],
      [106, 5460],
    ]);
    assert.deepEqual(lines[0]!.open, [
      { slot: 105, state: 'migrating', peer: id('b') },
      { slot: 200, state: 'importing', peer: id('c') },
    ]);
    assert.equal(lines[0]!.myself, true);
    assert.equal(lines[0]!.configEpoch, 3);
    assert.equal(lines[1]!.address, '127.0.0.1:7001');
    assert.deepEqual(lines[2]!.slots, []);
  });
});
