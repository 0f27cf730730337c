// The Valkey 9.1 build for the tests that need it. scripts/test.sh starts scripts/valkey9.sh in the
// background before anything else; a first run builds for 2-3 minutes, so a test file waits for it
// here (bounded) and, if it is absent or failed, skips with the reason instead of failing.

import { startSiteWithOwnSandbox, type Site } from '../../scripts/site.ts';
import { valkey9Build, type Valkey9Build } from '../../server/sandbox/valkey9-build.ts';
import { sandboxUp } from './sandbox-up.ts';

/** How long a test file waits for a build under way (a first build takes 2-3 minutes on two cores). */
const WAIT_MS = Number(process.env.VALKEY9_WAIT_MS || 360_000);

export type ReadyBuild = Extract<Valkey9Build, { state: 'ready' }>;

/** The ready build, or a skip message saying why there is none. */
export async function valkey9ForTests(): Promise<
  { build: ReadyBuild; skip: false } | { build: null; skip: string }
> {
  const deadline = Date.now() + WAIT_MS;
  let build = valkey9Build();
  while (build.state === 'building' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    build = valkey9Build();
  }
  if (build.state === 'ready') return { build, skip: false };
  const why = build.state === 'building' ? `still being built after ${WAIT_MS / 1000} s` : build.why;
  return { build: null, skip: `Valkey 9.1 is not available: ${why}` };
}

/**
 * A site of the test file's own, its Valkey 9.1 cluster started with it and the rate limit lifted,
 * handed over once its sandbox is up (the 9.1 cluster may still be forming: `atomicUp` waits for that).
 */
export async function siteWithValkey9(): Promise<Site> {
  const site = await startSiteWithOwnSandbox({
    VALKEY9_AT_START: '1',
    EXPLORER_BURST: '1000',
    EXPLORER_RATE: '1000',
  });
  await sandboxUp(site.url, 60_000);
  return site;
}
