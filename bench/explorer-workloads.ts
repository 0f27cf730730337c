// What the explorer benches send each experiment: run i's input. Queue names spread over the three
// nodes' slots (runs on one slot take turns); layout alternates the exact call and an edited one.

import { jobKey, queueKey } from '../server/contract/keyspace/index.ts';

export const WORKLOADS: Record<string, (i: number) => unknown> = {
  keys: (i) => ({ queue: `bench-${i % 97}` }),
  slot: (i) => ({ queue: `bench-${i % 97}`, other: 'fills' }),
  layout: (i) => ({
    verb: 'enqueue',
    queue: 'orders',
    ...(i % 2 ? {} : { keys: [jobKey('orders', 'JOB0Nb1VTbfnu4'), queueKey('orderz', 'pending')] }),
  }),
  route: (i) => ({ queue: `bench-${i % 97}` }),
  reserve: () => ({}),
  'two-executors': () => ({ steps: ['enqueue', 'claim', 'complete'] }),
  // The course's own example: a write, a script, a slot asked of the cluster.
  console: () => ({
    lines: [
      'EMQ.ENQUEUE 2 emq:{orders}:job:JOB0Nb1VTbfnu4 emq:{orders}:pending JOB0Nb1VTbfnu4 hello',
      'SCRIPT claim 3 emq:{orders}:pending emq:{orders}:active emq:{orders}:job: 30000',
      'CLUSTER KEYSLOT emq:{orders}:pending',
    ],
  }),
};
