// What a key's view costs the site when the key is new to it (a reader's first run of a queue, every
// job row): its segments, bytes, hashtag and slot (server/contract/experiments/segments.ts). Half queue
// keys of distinct queues, half job rows of 97 queues, each viewed once after a warm-up. Prints figures;
// asserts nothing.
// Run: node bench/key-view.ts [new keys]

import { viewKey } from '../server/contract/experiments/segments.ts';
import { mintJobId, queueKey, rowBase } from '../server/contract/keyspace/index.ts';

const COUNT = Number(process.argv[2] ?? 180_000);
const WARM = 20_000;
const keys = Array.from({ length: WARM + COUNT }, (_, i) =>
  i % 2 ? queueKey(`queue-${i}`, 'pending') : rowBase(`queue-${i % 97}`) + mintJobId(),
);
for (let i = 0; i < WARM; i += 1) viewKey(keys[i]!);
const started = performance.now();
for (let i = WARM; i < keys.length; i += 1) viewKey(keys[i]!);
const us = ((performance.now() - started) * 1000) / COUNT;
console.log(`a new key's view: ${us.toFixed(2)} µs (${COUNT.toLocaleString('en')} keys)`);
