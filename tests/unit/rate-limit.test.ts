import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimiter } from '../../server/front/rate-limit.ts';

describe('the rate limiter', () => {
  it('allows a burst, then the steady rate, per client', () => {
    const limiter = new RateLimiter({ burst: 3, perSecond: 2 });
    const t = 1_000_000;
    assert.deepEqual(
      [1, 2, 3].map(() => limiter.take('a', t)),
      [0, 0, 0],
    );
    assert.equal(limiter.take('a', t), 1);
    assert.equal(limiter.take('b', t), 0, 'another client has its own bucket');
    assert.equal(limiter.take('a', t + 500), 0, 'half a second gives one token back');
    assert.equal(limiter.take('a', t + 500), 1);
  });

  it('forgets the least recently seen clients beyond its bound', () => {
    const limiter = new RateLimiter({ burst: 1, perSecond: 0.001, maxClients: 2 });
    limiter.take('a', 0);
    limiter.take('b', 0);
    limiter.take('c', 0);
    assert.equal(limiter.take('a', 0), 0, 'a was forgotten, so it starts with a full bucket');
  });
});
