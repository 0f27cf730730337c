// One sandbox per test file: real valkey-server processes, started before the file's tests and
// stopped after them. Clients opened through it are closed with it.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { Cluster, Valkey } from 'iovalkey';
import { clusterClient } from '../../server/sandbox/cluster.ts';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../server/sandbox/sandbox.ts';
import { boundedTeardown } from './teardown.ts';

export interface TestSandbox {
  readonly sandbox: Sandbox;
  /** A new client on the standalone node, on database `db` (0 unless given). */
  standalone(db?: number): Valkey;
  /**
   * A new client on the standalone node's next database in turn (after the 16 a valkey-server has, the
   * first again): each test of a file gets a database of its own to empty and fill.
   */
  nextDatabase(): { db: number; client: Valkey };
  /** A cluster client (iovalkey's Cluster) on the three-node cluster: it follows MOVED and ASK. */
  cluster(): Cluster;
  /** A plain connection to one node of the cluster (in slot order): it answers MOVED for others' slots. */
  clusterNode(index: number): Valkey;
}

export function useSandbox(options: SandboxOptions = {}): TestSandbox {
  let sandbox: Sandbox | undefined;
  const clients: Array<Valkey | Cluster> = [];
  before(async () => {
    sandbox = await startSandbox(options);
  });
  after(() =>
    boundedTeardown(async () => {
      await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
      await sandbox?.stop();
    }),
  );
  const open = (url: string, db = 0) => {
    const client = new Valkey(url, { db, maxRetriesPerRequest: 1 });
    clients.push(client);
    return client;
  };
  let next = 0;
  return {
    get sandbox() {
      if (!sandbox) throw new Error('the sandbox starts in before(); use it inside a test');
      return sandbox;
    },
    standalone(db) {
      return open(this.sandbox.standalone.url, db);
    },
    nextDatabase() {
      const db = next++ % 16;
      return { db, client: this.standalone(db) };
    },
    cluster() {
      if (!this.sandbox.cluster) throw new Error('this sandbox has no cluster');
      const { seeds, admin } = this.sandbox.cluster;
      const client = clusterClient(seeds, { redisOptions: admin ?? {} });
      clients.push(client);
      return client;
    },
    clusterNode(index) {
      const url = this.sandbox.cluster?.url.split(',')[index];
      if (!url) throw new Error(`this sandbox has no cluster node ${index}`);
      const client = open(url);
      // A test may kill this node; the connection then reconnects by itself, quietly.
      client.on('error', () => {});
      return client;
    },
  };
}

/** The server clock in ms, as the transitions read it: seconds * 1000 + floor(micros / 1000). */
export async function serverMs(client: Valkey): Promise<number> {
  const [seconds = 0, micros = 0] = (await client.time()).map(Number);
  return seconds * 1000 + Math.floor(micros / 1000);
}

/** The pid of this process's valkey-server child listening on `port` (to SIGKILL it in a fault test). */
export function serverPid(port: number, parent = process.pid): number {
  const children = execFileSync('pgrep', ['-P', String(parent)], { encoding: 'utf8' })
    .trim()
    .split('\n');
  for (const pid of children.map(Number)) {
    let command = '';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    // valkey-server retitles itself "valkey-server 127.0.0.1:<port> …"; before that, "--port <port>".
    if (/valkey-server/.test(command) && new RegExp(`:${port}\\b|--port ${port}\\b`).test(command))
      return pid;
  }
  throw new Error(`no valkey-server child of ${parent} on port ${port}`);
}
