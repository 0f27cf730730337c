// The rate limiter's budgets (runs, catalogue reads, status checks: a bucket each, of the same size), on
// the limiter's own clock: a monitor polling the status once a second for an hour stays inside its
// budget whatever worker it reaches (each worker takes its share, WORKERS=2 here, and one worker may
// get every poll), and a flood of catalogue reads is held to its budget's rate.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimiter } from '../../server/front/rate-limit.ts';
import { frontSettings } from '../../server/settings/environment.ts';

describe('the status and catalogue budgets', () => {
  it('never refuses a monitor polling the status at 1 a second, even when one of 2 workers gets every poll', () => {
    const settings = frontSettings({}, 2);
    const status = new RateLimiter({ burst: settings.burst, perSecond: settings.ratePerSecond });
    let refused = 0;
    // Polls a second apart, ±200 ms of jitter (a timer on a loaded host).
    for (let s = 0; s < 3600; s += 1)
      refused += status.take('monitor', s * 1000 + ((s * 7919) % 400) - 200) > 0 ? 1 : 0;
    assert.equal(refused, 0);
  });

  it('holds a flood of catalogue reads to its budget: the burst, then its rate', () => {
    const settings = frontSettings({}, 1);
    const reads = new RateLimiter({ burst: settings.burst, perSecond: settings.ratePerSecond });
    let served = 0;
    // 5,000 reads a second for 10 s.
    for (let i = 0; i < 50_000; i += 1) served += reads.take('flood', i / 5) === 0 ? 1 : 0;
    const expected = settings.burst + 10 * settings.ratePerSecond;
    assert.ok(Math.abs(served - expected) <= 1, `${served} served of 50,000, about ${expected}`);
  });
});
