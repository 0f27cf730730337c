// The console's example for each course page: what the page teaches, as lines a reader can run and edit.

const MODULE = '/protocol/the-owned-keyspace/';
const ID = 'JOB0Nb1VTbfnu4';

export interface ConsoleExample {
  lines: string[];
  node: 'standalone' | 'cluster';
}

const EXAMPLES: Record<string, ConsoleExample> = {
  '/': { node: 'standalone', lines: ['PING', 'CLUSTER KEYSLOT emq:{orders}:pending', 'GET {emq}:version'] },
  [MODULE]: {
    node: 'standalone',
    lines: [
      `EMQ.ENQUEUE 2 emq:{orders}:job:${ID} emq:{orders}:pending ${ID} hello`,
      'SCRIPT claim 3 emq:{orders}:pending emq:{orders}:active emq:{orders}:job: 30000',
      `HGETALL emq:{orders}:job:${ID}`,
    ],
  },
  [`${MODULE}braced-grammar/`]: {
    node: 'standalone',
    lines: [
      `EMQ.ENQUEUE 2 emq:{orders}:job:${ID} emq:{orders}:pending ${ID} hello`,
      `EMQ.ENQUEUE 2 emq:{orders}:job:${ID} emq:{orderz}:pending ${ID} hello`,
      'SCAN 0 COUNT 100',
    ],
  },
  [`${MODULE}hashtag-and-slot/`]: {
    node: 'cluster',
    lines: [
      'CLUSTER KEYSLOT 123456789',
      'CLUSTER KEYSLOT emq:{orders}:pending',
      'CLUSTER KEYSLOT foo{}{bar}',
      'EMQ.CLAIM 3 emq:{orders}:pending emq:{fills}:active emq:{orders}:job: 30000',
    ],
  },
  [`${MODULE}reserve/`]: {
    node: 'standalone',
    lines: [
      'GET {emq}:version',
      'CLUSTER KEYSLOT {emq}:version',
      'SET {emq}:version echomq:4.0.0 NX',
      `EMQ.ENQUEUE 2 emq:{orders}:job:${ID} emq:{orders}:pending ${ID} hello`,
    ],
  },
};

export function exampleFor(route: string): ConsoleExample {
  return EXAMPLES[route] ?? EXAMPLES['/']!;
}
