// 50 simultaneous runs on the same queue name: each must be right, and none may see another's keys.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IdMinter } from '../../server/contract/keyspace/index.ts';
import { assertEachSawOnlyItsOwnJob, useExplorer } from '../support/explorer.ts';

const explorer = useExplorer({ EXPLORER_BURST: '1000', EXPLORER_RATE: '1000' });

describe('isolation under concurrency', () => {
  it('50 simultaneous keys runs on one queue each see only their own job', async () => {
    const minter = new IdMinter(9);
    const ids = Array.from({ length: 50 }, () => minter.mint());
    const results = await Promise.all(ids.map((id) => explorer.post('keys', { queue: 'orders', id })));
    assertEachSawOnlyItsOwnJob(results, ids, 'orders');
  });

  it('50 simultaneous mixed runs (two executors, reserve, layout) are each right', async () => {
    const runs = Array.from({ length: 50 }, (_, i) =>
      i % 3 === 0
        ? explorer.post('two-executors', { steps: ['enqueue', 'claim', 'complete'] })
        : i % 3 === 1
          ? explorer.post('reserve', {})
          : explorer.post('layout', { verb: 'claim' }),
    );
    const results = await Promise.all(runs);
    results.forEach(({ status, body }, i) => {
      assert.equal(status, 200, JSON.stringify(body));
      if (i % 3 === 0) assert.equal(body.result.same, true);
      if (i % 3 === 1)
        assert.equal(body.result.steps[0].commands[0].reply, null, 'a fresh keyspace every time');
      if (i % 3 === 2) assert.equal(body.result.standalone.accepted, true);
    });
    assert.deepEqual(await explorer.allKeys(), []);
  });
});
