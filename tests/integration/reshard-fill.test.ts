// The reshard's fill (server/experiments/migration/fill.ts) writes a queue in a few server-side calls;
// what it writes must be what the enqueue transition writes job by job. The same jobs (ids, payloads
// of every kind of byte), enqueued through the scripted executor on one database and filled into
// another, give byte-identical keyspaces; a refusal is the enqueue's own refusal.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callFor } from '../../server/contract/calls.ts';
import { ScriptedExecutor } from '../../server/executors/scripted.ts';
import { fillPayload, fillQueue, fillWords } from '../../server/experiments/migration/fill.ts';
import { dumpKeyspace } from '../../server/inspect/keyspace-dump.ts';
import { mintJobId } from '../../server/contract/keyspace/index.ts';
import { IdMinter } from '../../server/contract/keyspace/branded-id.ts';
import { useSandbox } from '../support/sandbox.ts';

const sandbox = useSandbox();

describe('the reshard fill', () => {
  it('writes the rows and the pending set exactly as the enqueue transition does', async () => {
    const enqueued = sandbox.nextDatabase().client;
    const filled = sandbox.nextDatabase().client;
    await Promise.all([enqueued.flushdb(), filled.flushdb()]);
    const payloads = [fillPayload(1), '', 'ça va ✓', '{"a":[1,2]}\n\t"quoted"', 'x'.repeat(5000)];
    const jobs = payloads.map((payload) => [mintJobId(), payload] as const);
    const executor = new ScriptedExecutor(enqueued);
    for (const [id, payload] of jobs) {
      assert.equal(await executor.run(callFor('enqueue', 'orders', { id, payload })), 1);
    }
    const [name, ...args] = fillWords('orders', jobs);
    assert.equal(await filled.call(name!, ...args), jobs.length);
    const [one, other] = await Promise.all([dumpKeyspace(enqueued), dumpKeyspace(filled)]);
    assert.equal(Object.keys(one).length, jobs.length + 1);
    assert.deepEqual(other, one);
  });

  it('refuses as the enqueue does: an id of another kind, a duplicate', async () => {
    const client = sandbox.nextDatabase().client;
    await client.flushdb();
    const [name, ...args] = fillWords('orders', [[new IdMinter().mint('GRP'), 'x']]);
    await assert.rejects(
      client.call(name!, ...args),
      /^ReplyError: EMQKIND expected an id of kind 'JOB' but found/,
    );
    const id = mintJobId();
    const [again, ...twice] = fillWords('orders', [
      [id, 'x'],
      [id, 'y'],
    ]);
    assert.equal(await client.call(again!, ...twice), 1, 'the second is a duplicate, as enqueue says (0)');
    // The ids go end to end at a fixed width: one of another width, or not ASCII, is refused here.
    assert.throws(() => fillWords('orders', [['JOB1', 'x']]), /the fill takes branded ids .* "JOB1"/);
    assert.throws(() => fillWords('orders', [['JOB0Nb1VTbfnué', 'x']]), /the fill takes branded ids/);
    assert.deepEqual(await client.hgetall(`emq:{orders}:job:${id}`), {
      state: 'pending',
      attempts: '0',
      payload: 'x',
    });
  });

  it('fills a whole queue in batches, every id once, oldest first', async () => {
    const client = sandbox.nextDatabase().client;
    await client.flushdb();
    const ids = await fillQueue(client, 'orders', 5001);
    assert.equal(ids.length, 5001);
    assert.equal(await client.zcard('emq:{orders}:pending'), 5001);
    assert.deepEqual(await client.zrange('emq:{orders}:pending', 0, 2), ids.slice(0, 3));
    assert.equal(await client.hget(`emq:{orders}:job:${ids[5000]}`, 'payload'), fillPayload(5001));
    await client.flushdb();
  });
});
