// What every reshard answer's time axis must hold, in both modes: a stamp on every phase, migration
// command and probe, in the order the run did them (a phase's commands, then the phase, then its
// probes), counted from the first migration command (0), and the move's duration after it; and the
// phases each mode answers, by name, which the server's and the page's tests hold to alike.

import assert from 'node:assert/strict';
import {
  isErrorReply,
  replyKind,
  type MigrationResult,
} from '../../server/contract/experiments/migration.ts';

/** The phases a key-by-key move answers, by name, in order; and an atomic move's. */
export const KEYS_MODE_PHASES = ['stable', 'importing', 'migrating', 'split', 'moved', 'owner', 'back'];
export const ATOMIC_PHASES = ['stable', 'moving', 'owner', 'back'];

export function assertTimeline(r: MigrationResult): void {
  const events: Array<[string, number]> = [];
  for (const phase of r.phases) {
    for (const step of phase.steps) events.push([`${phase.name}: ${step.command.join(' ')}`, step.atMs]);
    events.push([`phase ${phase.name}`, phase.atMs]);
    for (const probe of phase.probes) events.push([`${phase.name}: probe ${probe.label}`, probe.atMs]);
  }
  for (const [what, atMs] of events) assert.ok(Number.isFinite(atMs), `${what} has an atMs`);
  for (let i = 1; i < events.length; i += 1)
    assert.ok(
      events[i]![1] >= events[i - 1]![1],
      `${events[i]![0]} (${events[i]![1]} ms) comes after ${events[i - 1]![0]} (${events[i - 1]![1]} ms)`,
    );
  const first = r.phases.flatMap((phase) => phase.steps)[0]!;
  assert.equal(first.atMs, 0, 'the move begins with its first migration command');
  assert.ok(r.phases[0]!.atMs <= 0, 'the stable phase is read before the move');
  assert.ok(r.moveMs > 0 && Number.isFinite(r.moveMs), `moveMs ${r.moveMs}`);
  const owner = r.phases.find((phase) => phase.name === 'owner')!;
  assert.ok(owner.atMs >= r.moveMs, 'every node names the new owner once the move is over');
}

/**
 * What every phase counts, in both modes: every node's keys (read on the node) and every node's replies
 * by kind, each equal to the phase's probes counted again here. The queue is seen on the source before
 * the move, on the target once it owns the slot, and on the source again at the end, never elsewhere.
 */
export function assertPhaseCounts(r: MigrationResult, size: number): void {
  const addresses = r.nodes.map((n) => n.address).sort();
  const bystanders = addresses.filter((a) => a !== r.source && a !== r.target);
  for (const phase of r.phases) {
    assert.deepEqual(Object.keys(phase.keysByNode).sort(), addresses, `${phase.name}: keys on every node`);
    assert.deepEqual(
      Object.keys(phase.repliesByNode).sort(),
      addresses,
      `${phase.name}: replies of every node`,
    );
    for (const address of bystanders) assert.equal(phase.keysByNode[address], 0, `${phase.name}: ${address}`);
    for (const address of addresses) {
      const expected = { served: 0, refused: 0, retry: 0, redirected: 0 };
      for (const probe of phase.probes.filter((p) => p.node === address)) {
        if (probe.served === undefined) expected[replyKind(probe.reply)] += 1;
        else {
          expected[replyKind(probe.firstReply ?? probe.reply)] += probe.served;
          if (isErrorReply(probe.reply) && /^(MOVED|ASK|TRYAGAIN)\b/.test(probe.reply.error))
            expected[replyKind(probe.reply)] += 1;
        }
      }
      assert.deepEqual(phase.repliesByNode[address], expected, `${phase.name}: replies of ${address}`);
    }
  }
  const keys = (name: string) => r.phases.find((p) => p.name === name)!.keysByNode;
  // the queue's jobs, and its own keys beside them (pending, meta, …): at least `size`, a few more
  assert.ok(
    keys('stable')[r.source]! >= size && keys('stable')[r.source]! <= size + 10,
    JSON.stringify(keys('stable')),
  );
  assert.equal(keys('stable')[r.target], 0);
  assert.equal(keys('owner')[r.source], 0, 'nothing of the queue left on the former owner');
  assert.ok(keys('owner')[r.target]! >= size, JSON.stringify(keys('owner')));
  assert.ok(keys('back')[r.source]! >= size, JSON.stringify(keys('back')));
  assert.equal(keys('back')[r.target], 0);
}
