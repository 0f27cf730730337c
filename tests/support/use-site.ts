// The built site for one test file: started before its tests (with `env`), stopped after them, within
// the bounded teardown. What it answers stands for the Site itself, so a file reads `site.url` as if it
// had started it.

import { after, before } from 'node:test';
import { startSite, type Site } from '../../scripts/site.ts';
import { boundedTeardown } from './teardown.ts';

/** `ready`: what the file does once the site answers, before its tests (e.g. its first request). */
export function useSite(env: NodeJS.ProcessEnv = {}, ready?: (site: Site) => Promise<unknown>): Site {
  let site: Site | undefined;
  before(async () => {
    site = await startSite(env);
    await ready?.(site);
  });
  after(() => boundedTeardown(async () => site?.close()));
  const started = () => {
    if (!site) throw new Error('the site is started before the tests of the file, not at its top level');
    return site;
  };
  return {
    get url() {
      return started().url;
    },
    get pid() {
      return started().pid;
    },
    output: () => started().output(),
    close: () => started().close(),
  };
}
