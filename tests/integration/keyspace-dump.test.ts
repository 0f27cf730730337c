// The keyspace dump reads each key by its TYPE, whatever the layout expects there: a key the layout
// places is read in the same pipeline as its TYPE, one it does not place — or one holding another
// type than its place calls for — in a second; the dump is the same either way.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dumpKeyspace } from '../../server/inspect/keyspace-dump.ts';
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
