// The explorer's account, read back from a real server: exactly the commands it may run (a new one fails
// this test until it is added here on purpose), the scripts' own commands derived from their Lua, and
// the doors it must not have — SELECT out of its leased database, INFO, SCRIPT LOAD/EVAL (any Lua),
// FLUSHALL, CONFIG, ACL, SHUTDOWN, KEYS. And the `default` user: off, so nothing runs without a password.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { loadScripts, loadScriptsThrough, ScriptedExecutor } from '../../server/executors/scripted.ts';
import { scriptCommands, scriptFor } from '../../server/executors/scripts.ts';
import { callFor } from '../../server/contract/calls.ts';
import { EXPLORER_USER, installExplorerUser } from '../../server/explorer/explorer-user.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ cluster: false });
const PASSWORD = 'explorer-test-password';

/** What the scripts call; a script that calls another command must change this list too. */
const IN_SCRIPTS = [
  'del',
  'exists',
  'hget',
  'hincrby',
  'hset',
  'lpos',
  'rpush',
  'sismember',
  'time',
  'zadd',
  'zpopmin',
  'zrangebyscore',
  'zrem',
];
/** Everything else the account may run, by purpose (server/explorer/explorer-user.ts). */
const OTHERS = [
  ...['ping', 'client|info', 'client|setinfo', 'client|setname', 'quit'],
  ...['get', 'set', 'evalsha'],
  ...['scan', 'type', 'hgetall', 'zrange', 'lrange', 'smembers', 'dbsize'],
  ...['cluster|keyslot', 'cluster|slots', 'cluster|info', 'asking'],
  ...['zscore', 'ttl', 'echo'],
];
const KEYS = ['emq:{q}:pending', 'emq:{q}:active', 'emq:{q}:job:1'];
const NATIVE = [
  'emq.claim',
  'emq.complete',
  'emq.enqueue',
  'emq.promote',
  'emq.reap',
  'emq.retry',
  'emq.schedule',
];

/** The account's allowed commands from ACL GETUSER: `+name` tokens of its root and its selectors. */
async function allowed(admin: Valkey): Promise<{ root: string[]; selectors: string[] }> {
  const user = (await admin.call('ACL', 'GETUSER', EXPLORER_USER)) as unknown[];
  const field = (name: string) => user[user.indexOf(name) + 1];
  const plus = (rules: string) =>
    rules
      .split(' ')
      .filter((r) => r.startsWith('+'))
      .map((r) => r.slice(1))
      .sort();
  const selectors = (field('selectors') as unknown[][]).flatMap((s) =>
    plus(String(s[s.indexOf('commands') + 1])),
  );
  return { root: plus(String(field('commands'))), selectors: selectors.sort() };
}

/** A connection entered as the site enters one: the admin SELECTs `db`, then AUTHs as the explorer. */
async function asExplorer(db: number): Promise<Valkey> {
  const client = box.standalone(db);
  await client.call('AUTH', EXPLORER_USER, PASSWORD);
  return client;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  return 'ran';
}

describe('the explorer account', () => {
  it('allows exactly the listed commands, and the EMQ.* commands on any key', async () => {
    const admin = box.standalone();
    await installExplorerUser(admin, PASSWORD);
    const { root, selectors } = await allowed(admin);
    assert.deepEqual(root, [...IN_SCRIPTS, ...OTHERS].sort());
    assert.deepEqual(selectors, box.sandbox.nativeModule ? NATIVE : []);
  });

  it("allows the scripts' own commands exactly as their Lua calls them", async () => {
    assert.deepEqual(scriptCommands(), IN_SCRIPTS);
    const admin = box.standalone();
    await installExplorerUser(admin, PASSWORD);
    for (const command of scriptCommands()) {
      const verdict = await admin
        .call('ACL', 'DRYRUN', EXPLORER_USER, command, ...KEYS)
        .catch((error: Error) => error.message);
      // Arity errors are fine here: the ACL check comes first and said nothing.
      assert.ok(verdict === 'OK' || !/permission/i.test(String(verdict)), `${command}: ${verdict}`);
    }
  });

  it('stays in the database it was given: SELECT is refused and db= is unchanged', async () => {
    await installExplorerUser(box.standalone(), PASSWORD);
    const client = await asExplorer(7);
    assert.match(await refusal(client.select(3)), /^NOPERM/);
    assert.match(String(await client.call('CLIENT', 'INFO')), / db=7 /);
    await client.set('emq:{q}:pending', 'x');
    assert.equal(await box.standalone(7).get('emq:{q}:pending'), 'x');
    assert.equal(await box.standalone(3).get('emq:{q}:pending'), null);
  });

  it('has no INFO, no Lua of its own, nothing server-wide', async () => {
    await installExplorerUser(box.standalone(), PASSWORD);
    const client = await asExplorer(8);
    const doors: Array<[string, ...string[]]> = [
      ['INFO'],
      ['SCRIPT', 'LOAD', 'return 1'],
      ['SCRIPT', 'KILL'],
      ['SCRIPT', 'FLUSH'],
      ['EVAL', 'return 1', '0'],
      ['FCALL', 'f', '0'],
      ['FLUSHALL'],
      ['CONFIG', 'GET', 'maxmemory'],
      ['ACL', 'WHOAMI'],
      ['SHUTDOWN', 'NOSAVE'],
      ['KEYS', '*'],
      ['DEBUG', 'SLEEP', '0'],
      ['MODULE', 'LIST'],
      ['CLIENT', 'KILL', 'ID', '1'],
      ['SWAPDB', '0', '1'],
      ['MOVE', 'emq:{q}:pending', '0'],
      ['COPY', 'emq:{q}:pending', 'emq:{q}:x', 'DB', '0'],
    ];
    for (const [command, ...args] of doors) {
      // DEBUG is also off on the server itself; either way it never runs.
      const expected = command === 'DEBUG' ? /^(NOPERM|ERR .*not allowed)/ : /^NOPERM/;
      assert.match(await refusal(client.call(command, ...args)), expected, `${command} ${args.join(' ')}`);
    }
  });

  it("runs the project's scripts, loaded by the admin (also after they are flushed)", async () => {
    const admin = box.standalone();
    await installExplorerUser(admin, PASSWORD);
    await admin.call('SCRIPT', 'FLUSH');
    const client = await asExplorer(9);
    const call = callFor('enqueue', 'orders', { id: 'JOB0Nb1VTbfnu4', payload: '{}' });
    // Without the admin's loading, the account cannot load the script itself.
    assert.match(await refusal(new ScriptedExecutor(client).run(call)), /NOPERM/);
    loadScriptsThrough(client, admin);
    assert.equal(await new ScriptedExecutor(client).run(call), 1);
    // At start and after a restart, the admin loads every script before any run needs one.
    await admin.call('SCRIPT', 'FLUSH');
    await loadScripts(admin);
    assert.deepEqual(await admin.call('SCRIPT', 'EXISTS', scriptFor('claim').sha), [1]);
  });
});

describe('the default user', () => {
  it('refuses every command without a password', async () => {
    const url = new URL(box.sandbox.standalone.url);
    url.username = '';
    url.password = '';
    const anonymous = new Valkey(url.toString(), {
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      enableReadyCheck: false,
    });
    anonymous.on('error', () => {});
    try {
      await anonymous.connect();
      const commands: string[][] = [['PING'], ['FLUSHALL'], ['SHUTDOWN', 'NOSAVE'], ['CONFIG', 'GET', '*']];
      for (const [command, ...args] of commands) {
        assert.match(await refusal(anonymous.call(command!, ...args)), /^NOAUTH/, command);
      }
      assert.match(await refusal(anonymous.call('AUTH', 'default', '')), /WRONGPASS/);
    } finally {
      anonymous.disconnect();
    }
  });
});
