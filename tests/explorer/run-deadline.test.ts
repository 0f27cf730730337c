// No run goes on behind its answer: a run past its deadline is answered TIMEOUT by runExperiment (the
// one way into a run, the API's and the island's), and what it holds is let go then — its own cluster
// client is cut, so its commands fail at once, and a turn it still waits for is given up, so its work
// never starts behind the answer.

process.env.RUN_DEADLINE_MS = '500'; // read when the API's module loads: answered TIMEOUT at 1.5 s

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { RunTimeoutError } from '../../server/catalogue/run-timeout.ts';
import { explorerRuntime } from '../../server/explorer/runtime.ts';
import { slotLock } from '../../server/explorer/cluster-run.ts';
import type { Grant } from '../../server/explorer/grants.ts';
import { withOwnCluster } from '../../server/wire/cluster-wire.ts';
import { outsideRun, runDeadline, withinDeadline } from '../../server/run-deadline.ts';
import { useApi } from '../support/api.ts';

useApi();
let runExperiment: typeof import('../../server/api/api.ts').runExperiment;
before(async () => {
  ({ runExperiment } = await import('../../server/api/api.ts'));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a run past its deadline', () => {
  it('on a cluster client of its own: the client is cut, its commands fail, none is sent after', async () => {
    let sent = 0;
    let run: Promise<unknown> | undefined;
    const endless = {
      grant: ['cluster'] as const,
      run: ({ cluster: shared }: Grant<'cluster'>) =>
        (run = withOwnCluster(shared, async (cluster) => {
          for (;;) {
            await cluster.ping();
            sent += 1;
            await sleep(20);
          }
        })),
    };
    await assert.rejects(runExperiment(endless, {}), RunTimeoutError);
    assert.ok(sent > 0, 'the run was under way');
    let timer: NodeJS.Timeout | undefined;
    const goesOn = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('the run went on after its answer')), 5000);
    });
    await assert
      .rejects(Promise.race([run!, goesOn]), /Connection is closed/)
      .finally(() => clearTimeout(timer));
    const atEnd = sent;
    await sleep(100);
    assert.equal(sent, atEnd, 'nothing sent after the run ended');
  });

  it('waiting for a slot’s turn: it leaves the line, and its work never starts', async () => {
    const runtime = await explorerRuntime();
    // A slot no other run of this file takes.
    const n = 16_383;
    const lock = slotLock(n);
    let release: (() => void) | undefined;
    const holder = runtime.locks.with(lock, () => new Promise<void>((resolve) => (release = resolve)));
    for (let waited = 0; !release; waited += 10) {
      assert.ok(waited < 10_000, 'the holder took the turn');
      await sleep(10);
    }
    let started = false;
    const waiting = {
      grant: ['slotTurn'] as const,
      run: (grant: Grant<'slotTurn'>) =>
        grant.slotTurn(n, async () => {
          started = true;
        }),
    };
    await assert.rejects(runExperiment(waiting, {}), RunTimeoutError);
    release();
    await holder;
    // Had the run stayed in line, it would have had the turn before this one.
    await runtime.locks.with(lock, async () => {});
    assert.equal(started, false, 'the timed-out run did not take its turn');
  });

  it('what a run starts for the whole process (a runtime, its watchers) takes on no deadline', async () => {
    const late = () => new RunTimeoutError(50);
    const [inside, outside] = await withinDeadline(50, late, async () => [
      runDeadline(),
      outsideRun(runDeadline),
    ]);
    assert.ok(inside instanceof AbortSignal);
    assert.equal(outside, undefined);
    assert.equal(runDeadline(), undefined);
  });
});
