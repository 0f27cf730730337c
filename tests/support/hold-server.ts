// A busy server, made on purpose: one script that loops on TIME for `ms`, so every other client meets
// BUSY (once past busy-reply-threshold) until it ends. Resolves when the script has ended, never rejects.

import type { Valkey } from 'iovalkey';

export function holdServer(client: Valkey, ms: number): Promise<unknown> {
  return client
    .eval(
      `local s = redis.call('TIME') local start = s[1] * 1000000 + s[2]
       while true do local t = redis.call('TIME') if t[1] * 1000000 + t[2] - start > ${ms * 1000} then break end end
       return 1`,
      0,
    )
    .catch(() => null);
}
