// The admission verbs refuse a bad queue name before any command reaches the server. The proof is
// the server's own MONITOR stream, not the code: nothing but our marker arrives.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Valkey } from 'iovalkey';
import { Jobs } from '../../server/executors/jobs.ts';
import { ScriptedExecutor } from '../../server/executors/scripted.ts';
import { KeyspaceError, mintJobId } from '../../server/contract/keyspace/index.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ cluster: false, native: false });

/** Runs `act`, then sends an ECHO marker, and returns every command the server saw in between. */
async function commandsSeenDuring(
  client: Valkey,
  monitorHost: Valkey,
  act: () => Promise<void>,
): Promise<string[]> {
  const marker = `marker-${Math.random()}`;
  const monitor = await monitorHost.monitor();
  const seen: string[] = [];
  const done = new Promise<void>((resolve) => {
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) resolve();
      else seen.push(args.join(' '));
    });
  });
  await act();
  await client.echo(marker);
  await done;
  monitor.disconnect();
  return seen;
}

const BAD_NAMES = ['', 'a{b', 'ab}', '{orders}', 'a\u0000b', 'x\uD800'];

describe('the admission check runs before any wire', () => {
  it('enqueue, enqueue-many and lane enqueue send nothing for a bad name', async () => {
    const client = box.standalone(1);
    const jobs = new Jobs(new ScriptedExecutor(client));
    await client.ping();
    const seen = await commandsSeenDuring(client, box.standalone(1), async () => {
      for (const queue of BAD_NAMES) {
        await assert.rejects(jobs.enqueue(queue, mintJobId(), 'x'), KeyspaceError);
        await assert.rejects(
          jobs.enqueueMany(queue, [
            { id: mintJobId(), payload: 'a' },
            { id: mintJobId(), payload: 'b' },
          ]),
          KeyspaceError,
        );
        await assert.rejects(jobs.laneEnqueue(queue, 'GRP0000000000a', mintJobId(), 'x'), KeyspaceError);
      }
    });
    assert.deepEqual(seen, []);
    assert.equal(await client.dbsize(), 0);
  });

  it('a batch with one bad id sends none of the batch', async () => {
    const client = box.standalone(2);
    const jobs = new Jobs(new ScriptedExecutor(client));
    await client.ping();
    const seen = await commandsSeenDuring(client, box.standalone(2), async () => {
      await assert.rejects(
        jobs.enqueueMany('orders', [
          { id: mintJobId(), payload: 'a' },
          { id: 'JOB-not-an-id', payload: 'b' },
        ]),
        { code: 'BAD_ID' },
      );
    });
    assert.deepEqual(seen, []);
  });

  it('the marker method does see a good enqueue (the proof can fail)', async () => {
    const client = box.standalone(3);
    const jobs = new Jobs(new ScriptedExecutor(client));
    await client.ping();
    const seen = await commandsSeenDuring(client, box.standalone(3), async () => {
      await jobs.enqueue('orders', mintJobId(), 'x');
    });
    assert.ok(
      seen.some((command) => command.toLowerCase().startsWith('evalsha')),
      seen.join('\n'),
    );
  });
});
