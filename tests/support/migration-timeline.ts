// What every reshard answer's time axis must hold, in both modes: a stamp on every phase, migration
// command and probe, in the order the run did them (a phase's commands, then the phase, then its
// probes), counted from the first migration command (0), and the move's duration after it; and the
// phases each mode answers, by name, which the server's and the page's tests hold to alike.

import assert from 'node:assert/strict';
import type { MigrationResult } from '../../server/contract/experiments/migration.ts';

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
