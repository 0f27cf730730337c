// What a conformance suite keeps of its seeded sequences, whichever two sides it compares: the steps
// run, how often each branch of each transition was reached, and, for a sequence that disagreed, a line
// naming its seed, its first differing step and the command that replays it alone.

import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { StepResult } from '../../server/conformance/conformance.ts';
import { BASE_SEED, BRANCHES, outcome, SEQUENCES, sequenceFor } from './sequences.ts';

export class ConformanceTally {
  /** The seeds to run: every sequence, or the one named by the replay variable. */
  readonly seeds: number[];
  /** The seed being replayed alone, or null. */
  readonly replay: number | null;
  private steps = 0;
  private readonly seen = new Map<string, number>();
  private readonly failures: string[] = [];

  private readonly replayVariable: string;
  private readonly file: string;

  /** `replayVariable` names the environment variable that replays one seed of the suite in `file`. */
  constructor(replayVariable: string, file: string) {
    this.replayVariable = replayVariable;
    this.file = file;
    const replay = process.env[replayVariable];
    this.replay = replay ? Number(replay) : null;
    this.seeds =
      this.replay === null ? Array.from({ length: SEQUENCES }, (_, i) => BASE_SEED + i) : [this.replay];
  }

  /** Records the results of sequence `seed`, run on `queue`. */
  record(seed: number, queue: string, results: StepResult[]): void {
    this.steps += results.length;
    for (const result of results) this.seen.set(outcome(result), (this.seen.get(outcome(result)) ?? 0) + 1);
    const bad = results.findIndex((result) => result.differences.length > 0);
    if (bad < 0) return;
    const result = results[bad]!;
    this.failures.push(
      `seed ${seed} (queue ${JSON.stringify(queue)}), step ${bad + 1} of ` +
        `[${sequenceFor(seed).steps.join(', ')}]: ${result.step} ${JSON.stringify(result.call)}\n  ` +
        `${result.differences.join('\n  ')}\n  replay: ${this.replayVariable}=${seed} node --test ${this.file}`,
    );
  }

  /** Every sequence agreed; unless one seed is replayed, every step ran and every branch was reached. */
  check(t: TestContext, about: string): void {
    assert.deepEqual(this.failures, [], this.failures.join('\n'));
    t.diagnostic(`${this.seeds.length} sequences, ${this.steps} steps, ${about}`);
    if (this.replay !== null) return;
    assert.equal(
      this.steps,
      this.seeds.reduce((sum, seed) => sum + sequenceFor(seed).steps.length, 0),
    );
    for (const branch of BRANCHES) {
      assert.ok(
        (this.seen.get(branch) ?? 0) > 0,
        `no step reached ${branch}: ${JSON.stringify([...this.seen])}`,
      );
    }
  }
}
