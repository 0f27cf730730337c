// The explorer's JSON API through its handler, without the site: a sandbox this test file owns (so the
// test may read every server's own counters as the admin) and the experiments' runtime on it.

import { after, before } from 'node:test';
import { explorerRuntime } from '../../server/explorer/runtime.ts';
import { startSandbox, type Sandbox } from '../../server/sandbox/sandbox.ts';
import { boundedTeardown } from './teardown.ts';

export interface ApiUnderTest {
  readonly sandbox: Sandbox;
  post(name: string, body: unknown): Promise<{ status: number; body: any }>;
}

export function useApi(): ApiUnderTest {
  let sandbox: Sandbox | undefined;
  let handle: typeof import('../../server/api/api.ts').answerExperiment;
  before(async () => {
    sandbox = await startSandbox({ databases: 32 });
    process.env.VALKEY_URL = sandbox.standalone.url;
    // One seed: the runtime reaches the cluster through it (a cluster client discovers the rest).
    process.env.VALKEY_CLUSTER_URL = sandbox.cluster!.url.split(',')[0];
    // Read when the handler's module loads, so it is loaded after this: the tests are not about the limiter.
    process.env.EXPLORER_BURST = '100000';
    ({ answerExperiment: handle } = await import('../../server/api/api.ts'));
  });
  after(() =>
    boundedTeardown(async () => {
      await (await explorerRuntime()).close();
      await sandbox?.stop();
    }),
  );
  return {
    get sandbox() {
      return sandbox!;
    },
    async post(name, body) {
      const bytes = Buffer.from(JSON.stringify(body));
      const answer = await handle(
        {
          method: 'POST',
          contentType: 'application/json',
          readBody: async (limit) => (bytes.length > limit ? null : bytes),
        },
        name,
      );
      // As the front sends it: through JSON.
      return { status: answer.status, body: JSON.parse(JSON.stringify(answer.body)) };
    },
  };
}
