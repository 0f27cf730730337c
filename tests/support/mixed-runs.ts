// Mixed explorer runs for tests and soaks that drive a whole deployment: run i is one of six
// experiments with an input of its own, and a check that its answer is right and shows only what this
// run wrote. Queue names repeat on purpose (a few per experiment), so runs of different readers on one
// queue, and on one cluster slot, meet.

import { IdMinter } from '../../server/contract/keyspace/index.ts';

export const RUN_KINDS = ['keys', 'slot', 'route', 'console', 'reserve', 'two-executors'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export interface MixedRun {
  kind: RunKind;
  body: unknown;
  /** What is wrong with a 200 answer's `result`, or null when it is right and only this run's. */
  check(result: any): string | null;
}

const minter = new IdMinter(11);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Run i of a mixed load: the kinds in turn, queue names from a small set so runs share them. */
export function mixedRun(i: number): MixedRun {
  const kind = RUN_KINDS[i % RUN_KINDS.length]!;
  const queue = `mix-${i % 5}`;
  switch (kind) {
    case 'keys': {
      const id = minter.mint();
      return {
        kind,
        body: { queue, id },
        check: (r) => {
          const live = (r.live as Array<{ key: string; value: unknown }>).map((e) => e.key);
          const want = [`emq:{${queue}}:job:${id}`, `emq:{${queue}}:pending`];
          if (!same(live, want)) return `live keys ${JSON.stringify(live)}, expected ${JSON.stringify(want)}`;
          const pending = r.live.find((e: { key: string }) => e.key === want[1]).value;
          return same(pending, [[id, 0]])
            ? null
            : `pending held ${JSON.stringify(pending)}: not only this run's job`;
        },
      };
    }
    case 'slot':
      return {
        kind,
        body: { queue, other: 'fills' },
        check: (r) =>
          r.key.slot === r.key.serverSlot
            ? null
            : `slot ${r.key.slot} but the server said ${r.key.serverSlot}`,
      };
    case 'route':
      return {
        kind,
        body: { queue },
        check: (r) => {
          if (r.served.steps[1].reply?.[0] !== r.served.jobId)
            return `claimed ${r.served.steps[1].reply?.[0]}, not its own ${r.served.jobId}`;
          if (r.native.keysBefore !== 0) return `the queue held ${r.native.keysBefore} keys before the run`;
          return r.leftBehind === 0 ? null : `${r.leftBehind} keys left behind`;
        },
      };
    case 'console': {
      const id = minter.mint();
      const job = `emq:{${queue}}:job:${id}`;
      const pending = `emq:{${queue}}:pending`;
      return {
        kind,
        // The scripted form: a deployer's own Valkey may not have the native module.
        body: { lines: [`SCRIPT enqueue 2 ${job} ${pending} ${id} hi`, 'SCAN 0 COUNT 100'] },
        check: (r) => {
          // The wire identity is installed in the run's keyspace when the server has the native module.
          const keys = (r.keyspace as Array<{ key: string }>)
            .map((e) => e.key)
            .filter((k) => k !== '{emq}:version');
          const want = [job, pending].sort();
          if (!same(keys.sort(), want))
            return `keyspace ${JSON.stringify(keys)}, expected ${JSON.stringify(want)}`;
          const scanned = (r.lines[1].reply?.[1] ?? []).filter((k: string) => k !== '{emq}:version').sort();
          return same(scanned, want) ? null : `SCAN listed ${JSON.stringify(scanned)}`;
        },
      };
    }
    case 'reserve':
      return {
        kind,
        body: {},
        check: (r) => (r.steps[0].commands[0].reply === null ? null : 'the keyspace was not fresh'),
      };
    case 'two-executors':
      return {
        kind,
        body: { steps: ['enqueue', 'claim', 'complete'] },
        check: (r) => (r.same === true ? null : 'the two executors disagreed'),
      };
  }
}
