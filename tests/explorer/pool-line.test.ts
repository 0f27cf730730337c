// The keyspace pool at its size and past it: runs that find every lease taken wait in line and get one,
// first come first served, as soon as a run gives one back; a run that waits too long is told the
// sandbox is busy; a run may not ask for more keyspaces than there are. A real server, a pool of two.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { EXPLORER_USER, installExplorerUser, newPassword } from '../../server/explorer/explorer-user.ts';
import {
  ASKS_KEY,
  KeyspacePool,
  PoolBusyError,
  SandboxLimitError,
} from '../../server/explorer/keyspace-pool.ts';
import { until } from '../support/until.ts';
import { useSandbox } from '../support/sandbox.ts';

const sandbox = useSandbox();
let pool: KeyspacePool;
let password: string;
/** Every held run's finish: a test that fails midway lets go of its leases, so the next is not starved. */
const held: Array<() => void> = [];

/**
 * A run that holds its lease until told to finish; `started` settles when it has the lease, or fails
 * with the run if the run fails first (so a test waiting on it fails instead of waiting for ever).
 */
function heldRun(name: string, order: string[], waitMs?: number) {
  let finish!: () => void;
  let started!: () => void;
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  const done = pool.with(
    1,
    async ([lease]) => {
      order.push(name);
      await lease!.client.set('{emq}:run', name); // the keyspace is the run's own
      started();
      await new Promise<void>((resolve) => (finish = resolve));
      return lease!.db;
    },
    waitMs,
  );
  held.push(() => finish?.());
  done.catch(() => {}); // a failed run fails the test through `started` or `done`
  return { started: Promise.race([startedPromise, done.then(() => {})]), finish: () => finish?.(), done };
}

describe('the keyspace pool at its size and past it', () => {
  before(async () => {
    password = newPassword();
    await installExplorerUser(sandbox.standalone(0), password);
    pool = new KeyspacePool(sandbox.sandbox.standalone.url, 2, {
      explorer: { username: EXPLORER_USER, password },
    });
    // Both databases' connections up before the tests (a first connection waits at most 1 s, which a
    // machine loaded by other test files can exceed): the tests are about the line, not connecting.
    for (let tries = 1; ; tries += 1) {
      try {
        await pool.with(2, async () => {});
        break;
      } catch (error) {
        if (tries >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  });
  afterEach(() => held.splice(0).forEach((finish) => finish()));
  after(() => pool?.close());

  it('two runs hold both leases; three more wait and get them in the order they came', async () => {
    const order: string[] = [];
    const a = heldRun('a', order);
    const b = heldRun('b', order);
    await Promise.all([a.started, b.started]);
    const waiting = ['c', 'd', 'e'].map((name) => heldRun(name, order));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(order, ['a', 'b'], 'nobody past the size runs while both leases are held');

    a.finish();
    await waiting[0]!.started;
    b.finish();
    await waiting[1]!.started;
    waiting[0]!.finish();
    await waiting[2]!.started;
    assert.deepEqual(order, ['a', 'b', 'c', 'd', 'e']);
    waiting[1]!.finish();
    waiting[2]!.finish();
    const dbs = await Promise.all([a.done, b.done, ...waiting.map((run) => run.done)]);
    assert.ok(
      dbs.every((db) => db === 1 || db === 2),
      `databases ${dbs}`,
    );
  });

  // With more readers than keyspaces, every lease went back and was taken again a round trip apart, one
  // run at a time: the site spent twice the CPU a run and served half the runs a second.
  it('a lease given back goes to the next in line in the same write: one read for the server', async () => {
    const admin = sandbox.standalone(0);
    const reads = async () => Number(/total_reads_processed:(\d+)/.exec(await admin.info('stats'))![1]);
    await reads(); // connected before anything is counted
    const tries: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const order: string[] = [];
      const a = heldRun('a', order);
      const b = heldRun('b', order);
      await Promise.all([a.started, b.started]);
      // The next in line sends nothing of its own once it has its lease: every read counted is the pool's.
      let began!: () => void;
      let finish!: () => void;
      const started = new Promise<void>((resolve) => (began = resolve));
      const next = pool.with(1, () => {
        began();
        return new Promise<void>((resolve) => (finish = resolve));
      });
      // And one behind it, so the line does not empty (an emptied line takes its ask back: a write more).
      const last = heldRun('last', order);
      await new Promise((resolve) => setTimeout(resolve, 20)); // in line
      const before = await reads();
      a.finish();
      await started;
      // The INFO asking reads once itself; a periodic check of the sandbox's may add one, so the least of
      // three tries is held.
      tries.push((await reads()) - before - 1);
      finish();
      await last.started;
      last.finish();
      b.finish();
      await Promise.all([a.done, b.done, next, last.done]);
    }
    assert.equal(Math.min(...tries), 1, `reads between the give and the next run's start: ${tries}`);
  });

  it('a run that finds none given back in time is told the sandbox is busy', async () => {
    const order: string[] = [];
    const a = heldRun('a', order);
    const b = heldRun('b', order);
    await Promise.all([a.started, b.started]);
    await assert.rejects(
      pool.with(1, async () => 'never', 300),
      (error: Error) =>
        error instanceof PoolBusyError && /every sandbox keyspace is in use/.test(error.message),
    );
    a.finish();
    b.finish();
    await Promise.all([a.done, b.done]);
    assert.equal(await pool.with(1, async ([lease]) => lease!.client.get('{emq}:run')), null, 'flushed');
  });

  // Bounded: before the fix, the next in line slept for ever (nobody in this process gave back).
  it(
    'leases another process holds: the next in line, behind a run out of time, gets one when it comes back',
    { timeout: 20_000 },
    async () => {
      // A second pool on the same server and databases stands for another site process.
      const other = new KeyspacePool(sandbox.sandbox.standalone.url, 2, {
        explorer: { username: EXPLORER_USER, password },
      });
      try {
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let holding!: () => void;
        const held = new Promise<void>((resolve) => (holding = resolve));
        const elsewhere = other.with(2, async () => {
          holding();
          await released;
        });
        await held;
        const outOfTime = pool.with(1, async () => 'never', 300);
        const next = pool.with(1, async ([lease]) => lease!.db, 5000);
        await assert.rejects(outOfTime, PoolBusyError);
        release();
        await elsewhere;
        assert.ok([1, 2].includes(await next), 'the next in line got a lease the other process gave back');
      } finally {
        await other.close();
      }
    },
  );

  // Each process passes the leases its runs give back to its own line: without a share, a process that
  // held them all kept them, and another process's runs waited out their turn (BUSY).
  it(
    'two processes with runs in line share the leases: neither is starved',
    { timeout: 20_000 },
    async () => {
      const pools = [0, 1].map(
        () =>
          new KeyspacePool(sandbox.sandbox.standalone.url, 2, {
            explorer: { username: EXPLORER_USER, password },
          }),
      );
      try {
        const runs = [0, 0];
        const refused: string[] = [];
        const until = Date.now() + 2000;
        await Promise.all(
          pools.flatMap((each, k) =>
            Array.from({ length: 6 }, async () => {
              while (Date.now() < until) {
                await each
                  .with(1, async ([lease]) => {
                    await lease!.client.set('{emq}:run', String(k));
                    await new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(Math.random() * 4)));
                    runs[k]! += 1;
                  })
                  .catch((error: Error) => refused.push(error.message));
              }
            }),
          ),
        );
        assert.deepEqual(refused, [], 'no run waited out its turn');
        const [fewer, more] = [...runs].sort((a, b) => a - b) as [number, number];
        assert.ok(fewer * 3 >= more, `runs of each process: ${runs}`);
      } finally {
        await Promise.all(pools.map((each) => each.close()));
      }
    },
  );

  // A process's ask stands ASK_TTL_MS: one killed while its runs waited must not hold another's runs to a
  // share of the leases for ever (the survivor's own asks keep the hash alive, so only the field's
  // time says it is stale).
  it(
    'a process killed with runs in line: its ask lapses, and the survivor gets the lease it held',
    { timeout: 20_000 },
    async () => {
      const admin = sandbox.standalone(0);
      const order: string[] = [];
      const a = heldRun('a', order);
      await a.started;
      // The other process: three runs for the one lease left, two of them in line (its ask "1 2").
      const other = spawn(process.execPath, [join(import.meta.dirname, '../support/pool-process.ts')], {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: {
          ...process.env,
          ADMIN_URL: sandbox.sandbox.standalone.url,
          EXPLORER_USER,
          EXPLORER_PASSWORD: password,
          SIZE: '2',
          CALLERS: '3',
          HOLD_MS: '300',
          LEASE_MS: '1000',
        },
      });
      try {
        await once(other.stdout!, 'data');
        const asking = async () => Object.keys(await admin.hgetall(ASKS_KEY));
        await until('the other process asks', async () => (await asking()).length > 0, 5000, 10);
        const dead = await asking();
        other.kill('SIGKILL');
        await once(other, 'exit');
        // While the dead ask stood, this process (holding one, at its share) left the free lease alone.
        const b = heldRun('b', order, 5000);
        await b.started;
        assert.deepEqual(order, ['a', 'b']);
        assert.ok(
          (await asking()).every((field) => !dead.includes(field)),
          `the dead process's ask is gone: ${await asking()}`,
        );
        a.finish();
        b.finish();
        await Promise.all([a.done, b.done]);
      } finally {
        other.kill('SIGKILL');
      }
    },
  );

  it('a run may take as many keyspaces as there are, and not one more', async () => {
    assert.equal(
      (await pool.with(2, async (leases) => leases.map((lease) => lease.db).sort())).join(),
      '1,2',
    );
    await assert.rejects(
      pool.with(3, async () => 'never'),
      SandboxLimitError,
    );
  });
});
