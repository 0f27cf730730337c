// A console reader on the shared cluster sees only their own keys: the run takes the same per-slot turn
// as every other cluster run, so another reader's route run on a queue is over (and its keys deleted)
// before the console reads that queue; SCAN and DBSIZE, which would walk every reader's keys and the
// site's lock keys, are refused there; the site's own keys ({sandbox}:…) are refused by the allow-list
// and by the explorer account's key patterns; and a run holds the turn of at most 8 slots. And on each
// target, every command the console lists as allowed there runs there, as the explorer account: each
// row's example (server/contract/console/commands.ts), none refused, none answered NOPERM.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { slotLock } from '../../server/explorer/cluster-run.ts';
import { CONSOLE_CAPS } from '../../server/contract/limits.ts';

const CLUSTER_SLOTS_MAX = CONSOLE_CAPS.clusterSlots;
import { explorerRuntime } from '../../server/explorer/runtime.ts';
import { readShards } from '../../server/sandbox/cluster-topology.ts';
import { RunLocks } from '../../server/cluster/run-lock.ts';
import { queueKey, slot } from '../../server/contract/keyspace/index.ts';
import { useApi } from '../support/api.ts';
import { CONSOLE_COMMANDS } from '../../server/contract/console/commands.ts';

const api = useApi();
const consoleOnCluster = (lines: string[]) => api.post('console', { node: 'cluster', lines });

/** Queue names whose slots all differ, `count` of them. */
function queuesOnDistinctSlots(count: number): string[] {
  const seen = new Set<number>();
  const names: string[] = [];
  for (let i = 0; names.length < count; i += 1) {
    const n = slot(queueKey(`turn-${i}`, 'pending'));
    if (!seen.has(n)) (seen.add(n), names.push(`turn-${i}`));
  }
  return names;
}

describe('each target’s allow-list, on real servers', () => {
  for (const node of ['standalone', 'cluster'] as const) {
    it(`runs on "${node}" every command it lists there, as the explorer account`, async () => {
      const examples = Object.values(CONSOLE_COMMANDS)
        .filter((row) => row.runsOn.includes(node))
        .map((row) => row.example);
      const lines: Array<{ input: string; outcome: string; error?: { code: string; message: string } }> = [];
      for (let i = 0; i < examples.length; i += 16) {
        const { status, body } = await api.post('console', { node, lines: examples.slice(i, i + 16) });
        assert.equal(status, 200, JSON.stringify(body));
        lines.push(...body.result.lines);
      }
      assert.equal(lines.length, examples.length);
      for (const line of lines) {
        assert.notEqual(line.outcome, 'refused', `${line.input}: ${line.error?.message}`);
        assert.ok(
          !/NOPERM|unknown command/i.test(line.error?.message ?? ''),
          `${line.input}: ${line.error?.message}`,
        );
      }
    });
  }
});

describe('the console on the cluster reads only its own keys', () => {
  it('waits for the turn of the slot it reads while another run holds it', async () => {
    const runtime = await explorerRuntime();
    const n = slot(queueKey('held', 'pending'));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const taken = new Promise<void>((resolve) => (holding = resolve));
    const holder = runtime.locks.with(slotLock(n), async () => {
      holding();
      await held;
    });
    await taken;
    let answered = false;
    const reading = consoleOnCluster(['EXISTS emq:{held}:pending']).then((answer) => {
      answered = true;
      return answer;
    });
    // Another queue's slot is not held up: only the slot held waits.
    const free = await consoleOnCluster(['PING', 'EXISTS emq:{free}:pending']);
    assert.equal(free.status, 200);
    assert.equal(answered, false, 'the read waits while another run holds its slot');
    release();
    await holder;
    const { status, body } = await reading;
    assert.equal(status, 200);
    assert.equal(body.result.lines[0].reply, 0);
  });

  it('never sees the keys of another reader’s route run on the cluster, nor the site’s', async () => {
    const QUEUE = 'iso-a';
    const lines = [
      'SCAN 0 COUNT 100',
      'DBSIZE',
      `EXISTS ${['pending', 'active', 'meta', 'schedule'].map((type) => `emq:{${QUEUE}}:${type}`).join(' ')}`,
      `ZRANGE emq:{${QUEUE}}:pending 0 -1`,
      `GET {sandbox}:lock:${slotLock(slot(queueKey(QUEUE, 'pending')))}`,
      `TYPE ${RunLocks.key(slotLock(1))}`,
    ];
    let routing = true;
    const routes = (async () => {
      try {
        for (let i = 0; i < 10; i += 1) {
          const { status, body } = await api.post('route', { queue: QUEUE });
          assert.equal(status, 200, JSON.stringify(body));
        }
      } finally {
        routing = false;
      }
    })();
    let reads = 0;
    while (routing) {
      const { status, body } = await consoleOnCluster(lines);
      assert.equal(status, 200, JSON.stringify(body));
      reads += 1;
      const [scan, dbsize, exists, zrange, lock, type] = body.result.lines;
      for (const walk of [scan, dbsize]) {
        assert.equal(walk.outcome, 'refused');
        assert.equal(walk.error.code, 'NOT_ALLOWED');
        assert.match(walk.error.message, /standalone/);
        assert.equal(walk.proof.reached, 0, 'a refused line reaches no server');
      }
      assert.equal(exists.reply, 0);
      assert.deepEqual(zrange.reply, []);
      for (const own of [lock, type]) {
        assert.equal(own.outcome, 'refused');
        assert.equal(own.error.code, 'KEY_NOT_ALLOWED');
      }
    }
    await routes;
    assert.ok(reads >= 2, `the reader ran ${reads} times while the routes ran`);
  });

  it('the explorer account itself cannot read the site’s keys, nor list any key, on any node', async () => {
    const runtime = await explorerRuntime();
    for (const { address } of await readShards(runtime.clusterAdmin)) {
      const node = runtime.clusterNode(address);
      await assert.rejects(node.get(RunLocks.key('slot:1')), /NOPERM/);
      await assert.rejects(node.scan(0, 'COUNT', 100), /NOPERM/);
      await assert.rejects(node.dbsize(), /NOPERM/);
      assert.equal(await node.call('CLUSTER', 'KEYSLOT', 'emq:{x}:pending'), slot('emq:{x}:pending'));
    }
  });

  it(`takes the turn of ${CLUSTER_SLOTS_MAX} slots, and refuses a run naming ${CLUSTER_SLOTS_MAX + 1}`, async () => {
    const queues = queuesOnDistinctSlots(CLUSTER_SLOTS_MAX + 1);
    const exists = (names: string[]) => names.map((queue) => `EXISTS emq:{${queue}}:pending`);
    const atLimit = await consoleOnCluster(exists(queues.slice(0, CLUSTER_SLOTS_MAX)));
    assert.equal(atLimit.status, 200);
    const past = await consoleOnCluster(exists(queues));
    assert.equal(past.status, 400);
    assert.equal(past.body.code, 'BAD_INPUT');
    assert.match(
      past.body.detail,
      new RegExp(`${CLUSTER_SLOTS_MAX + 1} slots.*at most ${CLUSTER_SLOTS_MAX}`),
    );
    // CLUSTER KEYSLOT reads no key and takes no turn: any number of them run.
    const keyslots = await consoleOnCluster(queues.map((queue) => `CLUSTER KEYSLOT emq:{${queue}}:pending`));
    assert.equal(keyslots.status, 200);
  });
});
