// The keyspace dump reads each key by its TYPE, whatever the layout expects there: a key the layout
// places is read in the same pipeline as its TYPE, one it does not place — or one holding another
// type than its place calls for — in a second; the dump is the same either way. And the grammar's scan
// patterns, as a real server's SCAN MATCH reads them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadScriptsThrough } from '../../server/executors/scripted.ts';
import {
  dumpCalls,
  dumpCommand,
  dumpInServer,
  dumpKeyspace,
  dumpOfReply,
} from '../../server/inspect/keyspace-dump.ts';
import {
  namespacePattern,
  queueKey,
  queuePattern,
  reservePattern,
  versionKey,
} from '../../server/contract/keyspace/index.ts';
import { useSandbox } from '../support/sandbox.ts';

const sandbox = useSandbox();

describe('the keyspace dump', () => {
  it('reads placed, misplaced and unplaced keys alike', async () => {
    const client = sandbox.standalone(3);
    await client.flushdb();
    await client.zadd('emq:{orders}:pending', 0, 'JOB0Nb1VTbfnu4'); // where the layout says
    await client.hset('emq:{orders}:active', 'not', 'a sorted set'); // a hash where a zset belongs
    await client.set('emq:{orders}:ring', 'not a list'); // a string where a list belongs
    await client.rpush('plain:list', 'a', 'b'); // outside the grammar
    await client.sadd('emq:{orders}:paused', 'g2', 'g1');
    await client.set('{emq}:version', 'echomq:6.0.0');
    const dump = await dumpKeyspace(client);
    assert.deepEqual(dump, {
      'emq:{orders}:active': { type: 'hash', value: { not: 'a sorted set' } },
      'emq:{orders}:paused': { type: 'set', value: ['g1', 'g2'] },
      'emq:{orders}:pending': { type: 'zset', value: [['JOB0Nb1VTbfnu4', 0]] },
      'emq:{orders}:ring': { type: 'string', value: 'not a list' },
      'plain:list': { type: 'list', value: ['a', 'b'] },
      '{emq}:version': { type: 'string', value: 'echomq:6.0.0' },
    });
    assert.deepEqual(await dumpKeyspace(sandbox.standalone(4)), {});
  });
});

describe('the keyspace dump inside the server', () => {
  it('reads what the dump over the wire reads, in one command, and says how many it ran', async () => {
    const client = sandbox.standalone(5);
    await client.flushdb();
    loadScriptsThrough(client, client); // the admin connection loads the script for itself
    await client.zadd('emq:{orders}:pending', 0, 'JOB0Nb1VTbfnu4', 5, 'JOB0Nb1VTbfnu5');
    await client.hset('emq:{orders}:job:JOB0Nb1VTbfnu4', 'z', '1', 'a', '2');
    await client.rpush('emq:{orders}:ring', 'b', 'a');
    await client.sadd('emq:{orders}:paused', 'g2', 'g1');
    await client.set('{emq}:version', 'echomq:6.0.0');
    await client.xadd('emq:{orders}:events', '*', 'a', '1'); // a stream: neither dump reads it
    const overWire = await dumpKeyspace(client);
    assert.equal(Object.keys(overWire).length, 5);
    assert.deepEqual(await dumpInServer(client), overWire);
    assert.deepEqual(await dumpInServer(client, 1000, 'emq:*'), await dumpKeyspace(client, 1000, 'emq:*'));
    await assert.rejects(dumpInServer(client, 2), { message: 'more than 2 keys: not a sandbox keyspace' });
    await assert.rejects(dumpKeyspace(client, 2), { message: 'more than 2 keys: not a sandbox keyspace' });

    // The server counts the script's own commands on the caller: the reply's first word says how many.
    const counted = async () =>
      Number(/ tot-cmds=(\d+)/.exec(String(await client.call('CLIENT', 'INFO')))![1]);
    const before = await counted();
    const reply = await client.call(...dumpCommand());
    const after = await counted();
    assert.equal(after - before - 1, 1 + dumpCalls(reply)!, 'the CLIENT INFO, the EVALSHA and its calls');
    assert.deepEqual(dumpOfReply(reply), overWire);
    assert.deepEqual(await dumpInServer(sandbox.standalone(4)), {});
  });

  it('lists keys in the bytes’ order, not in JavaScript’s, both ways', async () => {
    const client = sandbox.standalone(7);
    await client.flushdb();
    loadScriptsThrough(client, client);
    // U+FF5E is EF BD 9E in UTF-8 and U+1F600 F0 9F 98 80: by bytes the first comes first, where
    // JavaScript's UTF-16 order (FF5E against the surrogate D83D) puts it last.
    const keys = ['k\u{1F600}', 'k\u{FF5E}', 'k', 'kA'];
    for (const key of keys) await client.set(key, '1');
    const inBytes = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    assert.deepEqual(inBytes, ['k', 'kA', 'k\u{FF5E}', 'k\u{1F600}']);
    assert.deepEqual(Object.keys(await dumpInServer(client)), inBytes);
    assert.deepEqual(Object.keys(await dumpKeyspace(client)), inBytes);
  });

  it('falls back to the wire where no admin loads its script', async () => {
    const client = sandbox.standalone(6);
    await client.flushdb();
    await client.call('SCRIPT', 'FLUSH');
    await client.set('{emq}:version', 'echomq:6.0.0');
    assert.deepEqual(await dumpInServer(client), {
      '{emq}:version': { type: 'string', value: 'echomq:6.0.0' },
    });
  });
});

describe('the grammar’s scan patterns, on a real server', () => {
  it('match one queue’s keys whatever bytes its name holds, every queue’s, and the reserve’s', async () => {
    const { client } = sandbox.nextDatabase();
    await client.flushdb();
    // Names a glob would read as a pattern, each beside a name that pattern would also match.
    const names = ['a*b', 'axb', 'a?b', 'a[b]c', 'abc', 'a\\b', 'a\\\\b'];
    for (const name of names) await client.zadd(queueKey(name, 'pending'), 0, 'JOB0Nb1VTbfnu4');
    await client.set(versionKey(), 'echomq:6.0.0');
    await client.set('elsewhere', '1');
    const scan = async (pattern: string) => {
      const found: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 100);
        found.push(...keys);
        cursor = next;
      } while (cursor !== '0');
      return found.sort();
    };
    for (const name of names)
      assert.deepEqual(await scan(queuePattern(name)), [queueKey(name, 'pending')], name);
    assert.deepEqual(await scan(namespacePattern()), names.map((name) => queueKey(name, 'pending')).sort());
    assert.deepEqual(await scan(reservePattern()), [versionKey()]);
  });
});
