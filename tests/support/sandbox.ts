// One sandbox per test file: real valkey-server processes, started before the file's tests and
// stopped after them. Clients opened through it are closed with it.

import { after, before } from 'node:test';
import { Valkey } from 'iovalkey';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../server/sandbox/sandbox.ts';

export interface TestSandbox {
  readonly sandbox: Sandbox;
  /** A new client on the standalone node (a fresh logical database per call unless `db` is given). */
  standalone(db?: number): Valkey;
  cluster(): Valkey;
}

export function useSandbox(options: SandboxOptions = {}): TestSandbox {
  let sandbox: Sandbox | undefined;
  const clients: Valkey[] = [];
  before(async () => {
    sandbox = await startSandbox(options);
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    await sandbox?.stop();
  });
  const open = (url: string, db = 0) => {
    const client = new Valkey(url, { db, maxRetriesPerRequest: 1 });
    clients.push(client);
    return client;
  };
  return {
    get sandbox() {
      if (!sandbox) throw new Error('the sandbox starts in before(); use it inside a test');
      return sandbox;
    },
    standalone(db) {
      return open(this.sandbox.standalone.url, db);
    },
    cluster() {
      if (!this.sandbox.cluster) throw new Error('this sandbox has no cluster node');
      return open(this.sandbox.cluster.url);
    },
  };
}

/** The server clock in ms, as the transitions read it: seconds * 1000 + floor(micros / 1000). */
export async function serverMs(client: Valkey): Promise<number> {
  const [seconds = 0, micros = 0] = (await client.time()).map(Number);
  return seconds * 1000 + Math.floor(micros / 1000);
}
