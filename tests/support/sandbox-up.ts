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
