// The explorer on a deployer's own cluster, whatever its shape: one node holding every slot (it names
// itself with an empty address), three primaries with a replica each (made by valkey-cli --cluster create
// --cluster-replicas 1), nodes behind requirepass or an ACL admin. Every experiment runs on each, to the
// primaries. And a cluster that cannot be used fails the start within 15 s with one line naming the node
// and what was wrong: nothing listening, a node that accepts and never answers, not a cluster node, a
// wrong password, slots nobody serves — never a silent wait.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { nodeMap } from '../../src/components/explorer/node-view.ts';
import { classify } from '../../server/api/failures.ts';
import type { RouteNode } from '../../server/contract/experiments/route.ts';
import { EXPERIMENTS, type Experiment } from '../../server/api/registry.ts';
import { EXPERIMENT_NAMES, EXPERIMENT_TABLE } from '../../server/contract/experiment-table.ts';
import { explorerRuntime, type ExplorerRuntime } from '../../server/explorer/runtime.ts';
import { grantOf } from '../../server/explorer/grants.ts';
import { freeClusterPort, waitClusterOk } from '../../server/sandbox/cluster.ts';
import { newPassword } from '../../server/explorer/explorer-user.ts';
import { startValkeyNode, type ValkeyNode } from '../../server/sandbox/valkey-process.ts';
import { freePort } from '../../server/sandbox/free-port.ts';
import { ensureBuilt, ROOT } from '../../scripts/site.ts';
import { boundedTeardown } from '../support/teardown.ts';
import { createClusterByCli } from '../support/cluster-create.ts';

const START_BOUND_MS = 15_000;
const ADMIN = { username: 'admin', password: newPassword() };
const REQUIREPASS = newPassword();
const nodes: ValkeyNode[] = [];
let standalone: ValkeyNode;
let oneNode: ValkeyNode;
let replicated: ValkeyNode[];

async function clusterNode(): Promise<ValkeyNode> {
  const node = await startValkeyNode({
    cluster: true,
    port: await freeClusterPort(),
    admin: ADMIN,
    settings: { 'cluster-node-timeout': '15000' },
  });
  nodes.push(node);
  return node;
}

before(async () => {
  standalone = await startValkeyNode({ admin: ADMIN }); // 16 databases, as Valkey comes
  nodes.push(standalone);

  // One node, all slots, behind requirepass (the `default` user with a password), no ACL user of ours.
  oneNode = await clusterNode();
  const one = new Valkey(oneNode.url, { retryStrategy: () => null });
  one.on('error', () => {});
  await one.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
  await one.call('ACL', 'SETUSER', 'default', 'on', '~*', '&*', '+@all');
  await one.call('CONFIG', 'SET', 'requirepass', REQUIREPASS);
  await one.call('ACL', 'DELUSER', ADMIN.username).catch(() => {}); // ends this very connection
  one.disconnect();
  await waitClusterOk([{ host: '127.0.0.1', port: oneNode.port }], {
    username: 'default',
    password: REQUIREPASS,
  });

  // Three primaries and three replicas behind an ACL admin, as valkey-cli makes them.
  replicated = await Promise.all(Array.from({ length: 6 }, () => clusterNode()));
  await createClusterByCli(
    replicated.map((node) => node.port),
    ADMIN,
    { replicas: 1, waitMs: 30_000 },
  );
});
after(() => boundedTeardown(() => Promise.all(nodes.map((node) => node.stop()))));

/** A runtime on `clusterUrl` (and the standalone), as a site process on existing servers starts one. */
async function startOn(clusterUrl: string): Promise<ExplorerRuntime> {
  Object.assign(process.env, { VALKEY_URL: standalone.url, VALKEY_CLUSTER_URL: clusterUrl });
  return explorerRuntime();
}

/** Every experiment once, as the API runs it: the names of those that did not answer 200. */
async function failingExperiments(runtime: ExplorerRuntime): Promise<string[]> {
  const failing: string[] = [];
  for (const name of EXPERIMENT_NAMES) {
    const experiment: Experiment = EXPERIMENTS[name];
    try {
      await experiment.run(
        grantOf(runtime, experiment.grant),
        experiment.parse(EXPERIMENT_TABLE[name].example),
      );
    } catch (error) {
      failing.push(`${name}: ${classify(error).status} ${(error as Error).message}`);
    }
  }
  return failing;
}

/** Every key on every node of `cluster`, read as its admin, but the run locks' `{sandbox}` keys. */
async function keysLeft(cluster: ValkeyNode[]): Promise<string[]> {
  const keys: string[] = [];
  for (const node of cluster) {
    const client = new Valkey(node.port, '127.0.0.1', node === oneNode ? { password: REQUIREPASS } : ADMIN);
    keys.push(...(await client.keys('*')).filter((key) => !key.startsWith('{sandbox}')));
    client.disconnect();
  }
  return keys;
}

describe('any cluster', () => {
  it('one node holding every slot, behind requirepass: every experiment runs', async () => {
    const url = `redis://:${encodeURIComponent(REQUIREPASS)}@127.0.0.1:${oneNode.port}`;
    const runtime = await startOn(url);
    try {
      // A reshard needs a second primary to move a slot to: on one node it is refused, saying so, before
      // any command changes the slot — never a 500, and no 503 that invites a retry which cannot help.
      const failing = await failingExperiments(runtime);
      assert.deepEqual(failing, [
        `reshard: 409 slot 105 cannot move: the cluster has one primary (127.0.0.1:${oneNode.port}), and a slot moves from one primary to another; a reshard needs at least two`,
      ]);
      assert.equal(await runtime.health(), true);
    } finally {
      await runtime.close();
    }
    assert.deepEqual(await keysLeft([oneNode]), []);
  });

  it('three primaries with a replica each, behind an ACL admin: every experiment runs, on the primaries', async () => {
    const seed = `redis://${ADMIN.username}:${encodeURIComponent(ADMIN.password)}@127.0.0.1:${replicated[0]!.port}`;
    const runtime = await startOn(seed);
    try {
      assert.deepEqual(await failingExperiments(runtime), []);
      const route = await EXPERIMENTS.route.run(grantOf(runtime, EXPERIMENTS.route.grant), {
        queue: 'orders',
      });
      const admin = new Valkey(replicated[0]!.port, '127.0.0.1', ADMIN);
      const primaries = String(await admin.call('CLUSTER', 'NODES'))
        .split('\n')
        .filter((line) => / (myself,)?master /.test(line))
        .map((line) => line.split(' ')[1]!.split('@')[0]!);
      admin.disconnect();
      assert.equal(primaries.length, 3);
      assert.deepEqual(route.nodes.map((node) => node.address).sort(), primaries.sort());
      assert.ok(primaries.includes(route.owner), `the run went to a primary (${route.owner})`);
      // The node view names each primary's replica beside it.
      assert.deepEqual(
        route.nodes.map((node) => node.replicas?.length),
        [1, 1, 1],
      );
      const strip = nodeMap(route.nodes as RouteNode[], []).html;
      assert.equal(strip.match(/data-node-replica/g)?.length, 3, strip);
    } finally {
      await runtime.close();
    }
    assert.deepEqual(await keysLeft(replicated), []);
  });
});

describe('a cluster that cannot be used fails the start, within 15 s, in one line', () => {
  let silent: Server;
  const held: Socket[] = [];
  before(async () => {
    // Accepts connections and never answers a byte.
    silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  after(() => {
    for (const socket of held) socket.destroy();
    silent.close();
  });

  async function refusal(clusterUrl: string): Promise<string> {
    const started = Date.now();
    const error = await startOn(clusterUrl).then(
      (runtime) => {
        void runtime.close();
        assert.fail('the start should have failed');
      },
      (failure: Error) => failure,
    );
    const elapsed = Date.now() - started;
    assert.ok(elapsed < START_BOUND_MS, `failed after ${elapsed} ms`);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error.message;
  }

  it('nothing listening at the seed', async () => {
    const port = await freeClusterPort();
    assert.match(
      await refusal(`127.0.0.1:${port}`),
      new RegExp(`cluster node 127\\.0\\.0\\.1:${port}: connection refused`),
    );
  });

  it('a seed that accepts and never answers', async () => {
    const { port } = silent.address() as { port: number };
    assert.match(
      await refusal(`127.0.0.1:${port}`),
      new RegExp(`cluster node 127\\.0\\.0\\.1:${port}: no answer within`),
    );
  });

  it('a standalone node named as the cluster', async () => {
    assert.match(await refusal(standalone.url), /: it is not a cluster node \(cluster-enabled is no\)/);
  });

  it('a wrong password, and none', async () => {
    const port = replicated[0]!.port;
    assert.match(
      await refusal(`redis://admin:wrong@127.0.0.1:${port}`),
      new RegExp(
        `cluster node 127\\.0\\.0\\.1:${port}: WRONGPASS .*give the admin's user and password in the URL`,
      ),
    );
    assert.match(await refusal(`127.0.0.1:${port}`), /NOAUTH|WRONGPASS/);
  });

  it('a standalone whose admin may not create the explorer’s account', async () => {
    const root = new Valkey(standalone.url);
    const password = newPassword();
    await root.call('ACL', 'SETUSER', 'noacl', 'on', `>${password}`, '~*', '&*', '+@all', '-acl');
    root.disconnect();
    const started = Date.now();
    Object.assign(process.env, {
      VALKEY_URL: `redis://noacl:${password}@127.0.0.1:${standalone.port}`,
      VALKEY_CLUSTER_URL: replicated[0]!.url,
    });
    const error = await explorerRuntime().then(
      () => assert.fail('the start should have failed'),
      (failure: Error) => failure,
    );
    assert.ok(Date.now() - started < START_BOUND_MS);
    assert.match(
      error.message,
      /^the admin user of 127\.0\.0\.1:\d+ may not create the explorer's account \(NOPERM [^\n]*\); it needs ACL SETUSER, MODULE LIST and SCRIPT LOAD$/,
    );
  });

  it('a cluster node that serves no slot', async () => {
    const lonely = await clusterNode();
    assert.match(
      await refusal(lonely.url),
      /cluster_state:fail \(0 of 16384 slots assigned\); every slot must be served/,
    );
  });
});

describe('the site itself, on servers it cannot use', () => {
  /** `node server/serve.ts` on these servers: its exit code, its output, and how long it took. */
  async function serveOn(env: NodeJS.ProcessEnv) {
    ensureBuilt();
    const started = Date.now();
    const child = spawn(process.execPath, [join(ROOT, 'server/serve.ts')], {
      cwd: ROOT,
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(await freePort()), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    return { code, output, ms: Date.now() - started };
  }

  it('ends with one line naming the node, never an unhandled `fetch failed`', async () => {
    const port = await freeClusterPort();
    const { code, output } = await serveOn({
      VALKEY_URL: standalone.url,
      VALKEY_CLUSTER_URL: `127.0.0.1:${port}`,
    });
    assert.equal(code, 1, output);
    assert.match(
      output,
      new RegExp(
        `^the owned keyspace cannot start: the cluster cannot be used — cluster node 127\\.0\\.0\\.1:${port}: connection refused`,
        'm',
      ),
    );
    assert.doesNotMatch(output, /fetch failed|Unhandled|at .*\.ts:\d+/);
  });

  it('a standalone of one database: one line naming the setting', async () => {
    const single = await startValkeyNode({ admin: ADMIN, databases: 1 });
    nodes.push(single);
    const { code, output } = await serveOn({
      VALKEY_URL: single.url,
      VALKEY_CLUSTER_URL: replicated[0]!.url,
    });
    assert.equal(code, 1, output);
    assert.match(
      output,
      /^the owned keyspace cannot start: the Valkey at 127\.0\.0\.1:\d+ has 1 database \(its `databases` setting\)/m,
    );
  });
});
