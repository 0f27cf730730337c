// The built site with its explorer, against a sandbox this test file owns (so the test can look into
// every database afterwards as the admin, which the site itself never is).

import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { Valkey } from 'iovalkey';
import { startSandbox, type Sandbox } from '../../server/sandbox/sandbox.ts';
import { startSite, type Site } from '../../scripts/site.ts';
import { boundedTeardown } from './teardown.ts';

export interface ExplorerUnderTest {
  readonly site: Site;
  readonly sandbox: Sandbox;
  post(name: string, body: unknown): Promise<{ status: number; body: any }>;
  /** Every key in every database of the standalone node and on every cluster node, read as the admin. */
  allKeys(): Promise<string[]>;
}

/** `seeds`: how many of the cluster's nodes VALKEY_CLUSTER_URL names (the site finds the others). */
export function useExplorer(env: NodeJS.ProcessEnv = {}, { seeds = 3 } = {}): ExplorerUnderTest {
  let site: Site | undefined;
  let sandbox: Sandbox | undefined;
  before(async () => {
    sandbox = await startSandbox({ standaloneSettings: { databases: '32' } });
    site = await startSite({
      VALKEY_URL: sandbox.standalone.url,
      VALKEY_CLUSTER_URL: sandbox.cluster!.url.split(',').slice(0, seeds).join(','),
      ...env,
    });
  });
  after(() =>
    boundedTeardown(async () => {
      await site?.close();
      await sandbox?.stop();
    }),
  );
  return {
    get site() {
      return site!;
    },
    get sandbox() {
      return sandbox!;
    },
    async post(name, body) {
      const response = await fetch(`${site!.url}/api/experiments/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    async allKeys() {
      const keys: string[] = [];
      const nodes = sandbox!.cluster!.url.split(',');
      for (const url of [sandbox!.standalone.url, ...nodes]) {
        const admin = new Valkey(url);
        // A cluster node has one database.
        const databases = nodes.includes(url) ? 1 : 32;
        for (let db = 0; db < databases; db += 1) {
          await admin.select(db);
          keys.push(...(await admin.keys('*')).map((key) => `${db}:${key}`));
        }
        admin.disconnect();
      }
      return keys;
    },
  };
}

/**
 * Keys runs made at once on one queue, the i-th enqueueing `ids[i]`: each answered 200 and saw its own
 * job and a pending set holding that job alone, never another run's keys.
 */
export function assertEachSawOnlyItsOwnJob(
  results: Array<{ status: number; body: any }>,
  ids: string[],
  queue: string,
): void {
  assert.equal(results.length, ids.length);
  results.forEach(({ status, body }, i) => {
    assert.equal(status, 200, JSON.stringify(body));
    const live = body.result.live as Array<{ key: string; value: unknown }>;
    assert.deepEqual(
      live.map((entry) => entry.key),
      [`emq:{${queue}}:job:${ids[i]}`, `emq:{${queue}}:pending`],
    );
    const pending = live.find((entry) => entry.key === `emq:{${queue}}:pending`)!;
    assert.deepEqual(pending.value, [[ids[i], 0]]);
  });
}
