// A site is measured or tested only once it says its sandbox is up: GET /api/sandbox, polled.

import { until } from './until.ts';

/** Waits, at most `ms`, until the site at `url` says `up`; answers how long that took, in ms. */
export async function sandboxUp(url: string, ms: number, everyMs = 100): Promise<number> {
  const started = performance.now();
  const up = async () => {
    const answer = (await (await fetch(`${url}/api/sandbox`)).json()) as { sandbox: string };
    return answer.sandbox === 'up';
  };
  await until('GET /api/sandbox saying up', up, ms, everyMs);
  return performance.now() - started;
}

/** Waits, at most `ms`, until the site at `url` says its Valkey 9.1 cluster (the atomic mode's) is up. */
export async function atomicUp(url: string, ms = 90_000, everyMs = 250): Promise<void> {
  let last: unknown;
  const up = async () => {
    const answer = (await (await fetch(`${url}/api/sandbox`)).json()) as { atomic: { state: string } };
    last = answer.atomic;
    return answer.atomic.state === 'up';
  };
  await until('GET /api/sandbox saying the Valkey 9.1 cluster is up', up, ms, everyMs).catch((error) => {
    throw new Error(`${(error as Error).message}; it said ${JSON.stringify(last)}`);
  });
}
