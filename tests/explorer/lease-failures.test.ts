// A deployer's own standalone Valkey, as it comes: 16 databases (its default), or one. The explorer
// reads what the server offers and sizes its keyspace pool to it, or refuses to start with one line that
// names the setting; and every way a run can fail on the server — a SELECT refused, the lease script
// refused, the run's connection or the admin's killed mid-run, the explorer's account gone — gives its
// lease back and leaves no key behind, with a 503 that says whose limit it was, never a 500.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { classify } from '../../server/api/failures.ts';
import { EXPLORER_USER, installExplorerUser, newPassword } from '../../server/explorer/explorer-user.ts';
import { KeyspacePool, SandboxLimitError } from '../../server/explorer/keyspace-pool.ts';
import {
  describeOffer,
  readKeyspaceOffer,
  StartRefusedError,
} from '../../server/sandbox/standalone-offer.ts';
import { startValkeyNode, type ValkeyNode } from '../../server/sandbox/valkey-process.ts';
import { boundedTeardown } from '../support/teardown.ts';
import { holdServer } from '../support/hold-server.ts';
import { until } from '../support/until.ts';

const ADMIN = { username: 'admin', password: newPassword() };
let sixteen: ValkeyNode; // the default configuration's 16 databases
let one: ValkeyNode; // `databases 1`
const clients: Valkey[] = [];
const pools: KeyspacePool[] = [];
const password = newPassword();
const explorer = { username: EXPLORER_USER, password };

function admin(node: ValkeyNode): Valkey {
  const client = new Valkey(node.url, { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  clients.push(client);
  return client;
}

function pool(size: number): KeyspacePool {
  const made = new KeyspacePool(sixteen.url, size, { explorer, deadlineMs: 3000, graceMs: 1000 });
  pools.push(made);
  return made;
}

/** Every key of every database of the 16, as `db:key`. */
async function everyKey(): Promise<string[]> {
  const client = admin(sixteen);
  const keys: string[] = [];
  for (let db = 0; db < 16; db += 1) {
    await client.select(db);
    keys.push(...(await client.keys('*')).map((key) => `${db}:${key}`));
  }
  client.disconnect();
  return keys;
}

before(async () => {
  [sixteen, one] = await Promise.all([
    startValkeyNode({ admin: ADMIN }),
    startValkeyNode({ admin: ADMIN, databases: 1 }),
  ]);
  await installExplorerUser(admin(sixteen), password);
});
after(() =>
  boundedTeardown(async () => {
    await Promise.all(pools.map((made) => made.close()));
    for (const client of clients) client.disconnect();
    await Promise.all([sixteen?.stop(), one?.stop()]);
  }),
);

describe('what a standalone Valkey offers', () => {
  it('16 databases give 15 keyspaces, said in the start line with the reason', async () => {
    const offer = await readKeyspaceOffer(admin(sixteen), 'here:1');
    assert.deepEqual(offer, { databases: 16, keyspaces: 15, readFrom: 'CONFIG GET' });
    assert.equal(
      describeOffer(offer, 'here:1'),
      'keyspaces: the explorer has 15 keyspaces on here:1 (databases 16 by CONFIG GET: database 0 holds the leases; set `databases 25` for 24)',
    );
  });

  it('an admin denied CONFIG still learns the count, by SELECT', async () => {
    const root = admin(sixteen);
    await root.call('ACL', 'SETUSER', 'noconfig', 'on', `>${password}`, '~*', '+@all', '-config');
    const limited = new Valkey(sixteen.port, '127.0.0.1', { username: 'noconfig', password });
    limited.on('error', () => {});
    clients.push(limited);
    const offer = await readKeyspaceOffer(limited, 'here:1');
    assert.deepEqual(offer, { databases: 16, keyspaces: 15, readFrom: 'SELECT' });
    assert.equal(await limited.set('probe-left-in-db-0', '1'), 'OK');
    assert.equal(await root.get('probe-left-in-db-0'), '1', 'the connection is back in database 0');
    await root.del('probe-left-in-db-0');
    limited.disconnect();
    await root.call('ACL', 'DELUSER', 'noconfig');
  });

  it('`databases 1` is refused with one line naming the setting', async () => {
    await assert.rejects(readKeyspaceOffer(admin(one), 'here:2'), (error: Error) => {
      assert.ok(error instanceof StartRefusedError);
      assert.doesNotMatch(error.message, /\n/);
      assert.match(error.message, /^the Valkey at here:2 has 1 database \(its `databases` setting\)/);
      assert.match(error.message, /set `databases 25` \(or at least 2\)/);
      return true;
    });
  });
});

describe('every failure of a run gives its lease back', () => {
  it('a pool of one keyspace refuses a two-keyspace run with a 503 that says so', async () => {
    const small = pool(1);
    await assert.rejects(
      small.with(2, async () => 'never'),
      (error: Error) => {
        assert.ok(error instanceof SandboxLimitError);
        assert.equal(
          error.message,
          'the sandbox Valkey cannot give this run its keyspace: it has 1 keyspace for runs and this run needs 2',
        );
        assert.equal(classify(error).status, 503);
        assert.equal(classify(error).code, 'SANDBOX_LIMIT');
        return true;
      },
    );
    assert.deepEqual(await everyKey(), []);
  });

  it('the lease script refused (a database the server lacks): 503, and no lease key stays', async () => {
    // A pool that believes in 24 keyspaces on a server of 16: the lease script's SELECT fails for 16–24.
    const oversized = pool(24);
    let refused = 0;
    let served = 0;
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        try {
          await oversized.with(1, async ([lease]) => lease!.client.set(`emq:{q${i}}:meta`, 'x'));
          served += 1;
        } catch (error) {
          assert.ok(error instanceof SandboxLimitError, String(error));
          assert.match(
            (error as Error).message,
            /the lease script was refused \(ERR DB index is out of range\)/,
          );
          assert.equal(classify(error).status, 503);
          refused += 1;
        }
      }),
    );
    assert.equal(served + refused, 40);
    assert.ok(refused > 0 && served > 0, `served ${served}, refused ${refused}`);
    assert.deepEqual(await everyKey(), [], 'no lease key and no run key anywhere');
  });

  it('a SELECT refused on a run connection: no connection is kept, 503 SANDBOX_LIMIT', async () => {
    const oversized = pool(17); // databases 1..17; the server has 0..15
    await assert.rejects(oversized.warm(), (error: Error) => {
      assert.ok(error instanceof SandboxLimitError);
      assert.match(error.message, /SELECT 1[67] was refused \(ERR DB index is out of range\)/);
      return true;
    });
    await oversized.close();
    const list = String(await admin(sixteen).call('CLIENT', 'LIST'));
    assert.doesNotMatch(list, /db=1[67] /, 'no connection left in a database the server lacks');
    assert.deepEqual(await everyKey(), []);
  });

  it('the run’s connection killed mid-run: 503 SANDBOX_DOWN, lease back at once, keys flushed', async () => {
    const fitted = pool(15);
    const root = admin(sixteen);
    await assert.rejects(
      fitted.with(1, async ([lease]) => {
        await lease!.client.set('emq:{mid-run}:meta', 'written before the kill');
        const id = Number(String(await lease!.client.call('CLIENT', 'INFO')).match(/id=(\d+)/)![1]);
        await root.call('CLIENT', 'KILL', 'ID', String(id));
        await lease!.client.get('emq:{mid-run}:meta');
      }),
      (error: Error) => classify(error).code === 'SANDBOX_DOWN',
    );
    assert.deepEqual(await everyKey(), []);
    // The next run on any database is served on a connection of its own, as the explorer.
    const whoami = await fitted.with(1, async ([lease]) => lease!.client.call('ACL', 'WHOAMI').catch(String));
    assert.match(String(whoami), /NOPERM|explorer/);
  });

  it('the admin’s connection killed as the run ends: the leases still come back, soon', async () => {
    const fitted = pool(15);
    const root = admin(sixteen);
    await fitted.with(1, async () => {}); // connected
    await fitted.with(2, async ([a, b]) => {
      await a!.client.set('emq:{a}:meta', '1');
      await b!.client.set('emq:{b}:meta', '1');
      await root.call('CLIENT', 'KILL', 'USER', ADMIN.username, 'SKIPME', 'yes');
    });
    await until(
      'the leases came back once the admin reconnected',
      async () => (await everyKey()).length === 0,
      10_000,
    );
  });

  it('a busy server outlasts the lease: the give that gets through after it still flushes', async () => {
    // A lease of 500 ms, and a script holding the server for 1.2 s from just before the run ends: the
    // give is refused (BUSY), and by the time a retry is answered the lease has expired.
    const short = new KeyspacePool(sixteen.url, 15, { explorer, deadlineMs: 300, graceMs: 200 });
    pools.push(short);
    const root = admin(sixteen);
    const blocker = admin(sixteen);
    await root.config('SET', 'busy-reply-threshold', '50');
    try {
      let busy: Promise<unknown> = Promise.resolve();
      await short.with(1, async ([lease]) => {
        await lease!.client.set('emq:{busy}:meta', 'written before the server was busy');
        busy = holdServer(blocker, 1200);
        await new Promise((resolve) => setTimeout(resolve, 120));
      });
      await busy;
      await until(
        'the expired lease’s database was flushed by the give that got through',
        async () => (await everyKey()).length === 0,
        6_000,
      );
    } finally {
      await root.config('SET', 'busy-reply-threshold', '5000');
    }
  });

  it('the explorer’s account missing (a restarted server): the connection is closed, never kept as the admin', async () => {
    const fitted = pool(15);
    const root = admin(sixteen);
    await root.call('ACL', 'DELUSER', EXPLORER_USER);
    // Old connections of every pool die with the account; new ones fail their AUTH.
    await root.call('CLIENT', 'KILL', 'USER', EXPLORER_USER).catch(() => {});
    for (let i = 0; i < 5; i += 1) {
      await assert.rejects(
        fitted.with(1, async () => 'never'),
        (error: Error) => classify(error).code === 'SANDBOX_DOWN',
      );
    }
    const list = String(await root.call('CLIENT', 'LIST'));
    const admins = list.split('\n').filter((line) => / user=admin /.test(line) && !/ db=0 /.test(line));
    assert.deepEqual(admins, [], 'no admin connection outside database 0');
    assert.deepEqual(await everyKey(), []);
    await installExplorerUser(root, password);
    assert.equal(await fitted.with(1, async ([lease]) => lease!.client.ping()), 'PONG');
  });
});
