// A token bucket per client: a burst is allowed, then a steady rate. Bounded memory: the oldest
// clients are forgotten first when too many are tracked.

export interface RateLimitOptions {
  /** Requests a client may make at once. */
  burst: number;
  /** Tokens added per second. */
  perSecond: number;
  /** Clients tracked at most. */
  maxClients?: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly options: Required<RateLimitOptions>;

  constructor(options: RateLimitOptions) {
    this.options = { maxClients: 10_000, ...options };
  }

  /** 0 when the request may go, else the seconds to wait. */
  take(client: string, now = Date.now()): number {
    const { burst, perSecond, maxClients } = this.options;
    const bucket = this.buckets.get(client) ?? { tokens: burst, at: now };
    this.buckets.delete(client); // re-inserted last: the map's order is least recently seen first
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    let wait = 0;
    if (bucket.tokens >= 1) bucket.tokens -= 1;
    else wait = Math.ceil((1 - bucket.tokens) / perSecond);
    this.buckets.set(client, bucket);
    if (this.buckets.size > maxClients) this.buckets.delete(this.buckets.keys().next().value!);
    return wait;
  }
}
