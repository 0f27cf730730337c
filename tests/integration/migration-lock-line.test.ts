// The reshards' turn as a line, on a real cluster (run-lock.ts): tickets drawn by two separate
// runtimes (each its own cluster client, as two site processes are) are served in the order drawn,
// whichever runtime drew them; a reader who already had a ticket in the round under way goes behind
// those who had none; a dead process's ticket leaves with its lease, and a dead holder on this
// host at once; a line whose work ahead, at its pace, is longer than the taker's bound refuses it at
// once — at the bound it is taken, one past it refused — and an empty line leaves no key.

import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import { LineFullError, lineKeys, LockBusyError, TurnLines } from '../../server/cluster/run-lock.ts';
import { asCaller } from '../../server/run-caller.ts';
import { useSandbox } from '../support/sandbox.ts';
import { until } from '../support/until.ts';

const box = useSandbox({ native: false });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves `release` to end a held turn. */
function gate() {
  let release!: () => void;
  const closed = new Promise<void>((resolve) => (release = resolve));
  return { closed, release };
}

describe('the line of a turn', () => {
  it('serves tickets in the order drawn, across two runtimes', async () => {
    const admin = box.cluster();
    const one = new TurnLines(admin);
    const two = new TurnLines(box.cluster());
    const name = 'test-order';
    const [line] = lineKeys(name);
    const served: string[] = [];
    const first = gate();
    const holding = one.with(name, async () => {
      served.push('holder');
      await first.closed;
    });
    await until('the holder holds', async () => (await admin.zcard(line)) === 1 && served.length === 1);
    // Drawn alternately by the two runtimes, each once the one before it is in line.
    const waiting: Array<Promise<void>> = [];
    for (const [i, lines] of [two, one, two, one, two].entries()) {
      waiting.push(lines.with(name, async () => void served.push(`ticket ${i}`)));
      await until(`ticket ${i} in line`, async () => (await admin.zcard(line)) === i + 2, 5000, 5);
    }
    first.release();
    await Promise.all([holding, ...waiting]);
    assert.deepEqual(served, ['holder', 'ticket 0', 'ticket 1', 'ticket 2', 'ticket 3', 'ticket 4']);
    assert.equal(await admin.exists(...lineKeys(name)), 0, 'an empty line leaves no key');
  });

  it('serves in rounds: a reader who already had a ticket in the round under way waits for the next', async () => {
    const admin = box.cluster();
    const lines = new TurnLines(admin);
    const name = 'test-rounds';
    const [line] = lineKeys(name);
    const served: string[] = [];
    const held = gate();
    // Reader a holds the turn (round 0); its next ticket goes in round 1, behind b and c, who had none.
    const holding = asCaller('10.0.0.1', () => lines.with(name, () => held.closed));
    await until('a holds', async () => (await admin.zcard(line)) === 1);
    // Each asks once the one before it is in line; `done` is its turn, awaited at the end.
    const ask = async (reader: string, label: string, inLine: number) => {
      const done = asCaller(reader, () => lines.with(name, async () => void served.push(label)));
      await until(`${label} in line`, async () => (await admin.zcard(line)) === inLine, 5000, 5);
      return { done };
    };
    const again = await ask('10.0.0.1', 'a again', 2);
    const b = await ask('10.0.0.2', 'b', 3);
    const c = await ask('10.0.0.3', 'c', 4);
    held.release();
    await Promise.all([holding, again.done, b.done, c.done]);
    assert.deepEqual(served, ['b', 'c', 'a again']);
    assert.equal(await admin.exists(...lineKeys(name)), 0);
  });

  it('lets a dead process’s ticket go with its lease, and a dead holder on this host at once', async () => {
    const admin = box.cluster();
    const lines = new TurnLines(admin, 600);
    const [line, alive] = lineKeys('test-dead');
    // Another host's ticket, first in line, whose process stopped renewing: its lease runs out.
    await admin.zadd(line, 0, 'elsewhere:1234:deadticket');
    await admin.zadd(alive, Date.now() + 600, 'elsewhere:1234:deadticket');
    let started = Date.now();
    assert.equal(await lines.with('test-dead', async () => 'ran', 3000), 'ran');
    assert.ok(Date.now() - started >= 400, 'it waited for the lease');
    // This host's, with a pid that runs nothing (the highest Linux hands out, plus one): freed at once.
    const dead = `${hostname()}:4194305:deadholder`;
    await admin.zadd(line, 0, dead);
    await admin.zadd(alive, Date.now() + 20_000, dead);
    started = Date.now();
    assert.equal(await lines.with('test-dead', async () => 'ran', 3000), 'ran');
    assert.ok(Date.now() - started < 1000, 'taken over without waiting out the lease');
    assert.equal(await admin.exists(...lineKeys('test-dead')), 0);
  });

  it('refuses at once a ticket the line ahead would keep past its bound: at the bound taken, one past refused', async () => {
    const admin = box.cluster();
    const lines = new TurnLines(admin);
    const name = 'test-bound';
    const [line, , meta] = lineKeys(name);
    const held = gate();
    const holding = lines.with(name, () => held.closed);
    await until('the holder holds', async () => (await admin.zcard(line)) === 1);
    // One ticket ahead, at a pace of 700 ms a turn: 700 ms of work ahead.
    await admin.hset(meta, 'avg', 700);
    let started = Date.now();
    const refused = await lines.with(name, async () => 'ran', 699).catch((error) => error);
    assert.ok(refused instanceof LineFullError, String(refused));
    assert.ok(Date.now() - started < 500, 'refused at once, not after waiting');
    assert.match(
      refused.message,
      /^test-bound has 1 runs in line before this one, about 700 ms of turns, longer than the 699 ms a run waits/,
    );
    // At the bound it takes a ticket and waits; it is told busy when the bound passes, not before.
    started = Date.now();
    const waited = await lines.with(name, async () => 'ran', 700).catch((error) => error);
    assert.ok(waited instanceof LockBusyError, String(waited));
    assert.ok(Date.now() - started >= 650, `waited its bound (${Date.now() - started} ms)`);
    // With the holder gone, the one at the bound is served.
    const atBound = lines.with(name, async () => 'ran', 700);
    await until('the ticket in line', async () => (await admin.zcard(line)) === 2, 5000, 5);
    held.release();
    await holding;
    assert.equal(await atBound, 'ran');
    assert.equal(await admin.exists(...lineKeys(name)), 0);
  });

  it('leaves the line when the run’s deadline passes while it waits', async () => {
    const admin = box.cluster();
    const lines = new TurnLines(admin);
    const name = 'test-deadline';
    const [line] = lineKeys(name);
    const held = gate();
    const holding = lines.with(name, () => held.closed);
    await until('the holder holds', async () => (await admin.zcard(line)) === 1);
    const { withinDeadline } = await import('../../server/run-deadline.ts');
    const late = await withinDeadline(
      300,
      () => new Error('deadline passed'),
      () => lines.with(name, async () => 'ran', 10_000),
    ).catch((error) => error);
    assert.match(String(late), /deadline passed/);
    await until('its ticket left', async () => (await admin.zcard(line)) === 1, 2000, 20);
    held.release();
    await holding;
    await sleep(50);
    assert.equal(await admin.exists(...lineKeys(name)), 0);
  });
});
