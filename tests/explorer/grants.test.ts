// Each experiment is given only what its registry row names (server/explorer/grants.ts), and only the
// reshard is given an admin client, of either cluster. Held on real runtimes (the Valkey 8 sandbox and,
// when it is built, the Valkey 9.1 cluster): every grant is built as a run gets it, then walked through
// every property it holds (a pool or a lock handed over would carry its admin connection with it), and
// every client its functions hand out is asked who it is connected as. The atomic mode is given a
// frozen object of closures, never the Valkey 9.1 runtime or its close(). No experiment module fetches
// the runtime by itself.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { types } from 'node:util';
import { Cluster, Valkey } from 'iovalkey';
import { EXPERIMENTS } from '../../server/api/registry.ts';
import { EXPLORER_USER } from '../../server/explorer/explorer-user.ts';
import { grantOf, type CapabilityName, type Capabilities } from '../../server/explorer/grants.ts';
import { explorerRuntime, type ExplorerRuntime } from '../../server/explorer/runtime.ts';
import {
  atomicRuntime,
  closeAtomicRuntime,
  type AtomicRuntime,
} from '../../server/explorer/atomic-runtime.ts';
import { readShards } from '../../server/sandbox/cluster-topology.ts';
import { projectRoot } from '../../server/project-root.ts';
import { useApi } from '../support/api.ts';
import { boundedTeardown } from '../support/teardown.ts';
import { valkey9ForTests } from '../support/valkey9.ts';

const api = useApi();
const valkey9 = await valkey9ForTests();
/** The Valkey 9.1 cluster's runtime, started before the walk (a run waits for it 3 s at most). */
let atomic: AtomicRuntime | null = null;
before(async () => {
  if (!valkey9.skip) atomic = await atomicRuntime();
});
after(() => boundedTeardown(closeAtomicRuntime));

/** The capabilities that hand over the admin side of a cluster: a migration's, and nobody else's. */
const ADMIN_CAPABILITIES: readonly CapabilityName[] = ['migration'];

/** The options a client (re)connects with, and `duplicate()` copies. */
function optionsOf(client: Valkey | Cluster) {
  return (client instanceof Cluster ? client.options.redisOptions : client.options) ?? {};
}

/** The user a client signs in as (`default` when it names none). */
function userOf(client: Valkey | Cluster): string {
  return optionsOf(client).username ?? 'default';
}

/**
 * What is reachable from `root` through its properties (own, enumerable or not, symbols included, and
 * the entries of maps and sets), down to the clients: a client is where the walk stops and asks who it
 * is. A closure's captured variables are out of every experiment's reach, and of this walk's.
 */
function reachable(root: unknown): { clients: Array<Valkey | Cluster>; values: Set<unknown> } {
  const values = new Set<unknown>();
  const clients: Array<Valkey | Cluster> = [];
  const visit = (value: unknown): void => {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
      values.add(value);
      return;
    }
    if (values.has(value)) return;
    values.add(value);
    if (value instanceof Valkey || value instanceof Cluster) {
      clients.push(value);
      return;
    }
    if (value instanceof Map) for (const [key, entry] of value) [key, entry].forEach(visit);
    if (value instanceof Set) value.forEach(visit);
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(value, key)!;
      // A getter is not called: a grant holds values and closures, and a getter would be a closure.
      if ('value' in descriptor) visit(descriptor.value);
    }
  };
  visit(root);
  return { clients, values };
}

/** What of the runtime's admin side `root` reaches: admin clients, the admin's members, its password. */
function adminReached(root: unknown, runtime: ExplorerRuntime): string[] {
  const { clients, values } = reachable(root);
  const passwords = [api.sandbox.cluster!.admin?.password, atomic?.access.admin?.password];
  const found = clients
    .filter((client) => userOf(client) !== EXPLORER_USER)
    .map(
      (client) =>
        `a ${client instanceof Cluster ? 'cluster client' : 'connection'} signed in as ${userOf(client)}`,
    );
  for (const password of passwords)
    if (password && clients.some((client) => optionsOf(client).password === password))
      found.push('a client holding the admin’s password');
  const members = {
    clusterAdmin: runtime.clusterAdmin,
    clusterAdminNode: runtime.clusterAdminNode,
    access: runtime.access,
    migrations: runtime.migrations,
    locks: runtime.locks,
    pool: runtime.pool,
    atomic,
    atomicClose: atomic?.close,
    atomicAdmin: atomic?.clusterAdmin,
    atomicLocks: atomic?.locks,
    atomicAccess: atomic?.access,
  };
  for (const [name, member] of Object.entries(members))
    if (member && values.has(member)) found.push(`runtime.${name}`);
  for (const password of passwords) if (password && values.has(password)) found.push('the admin’s password');
  return found;
}

/**
 * How each capability's clients are reached, to be asked who they are: a new capability fails here
 * until it says so. Each answers what its functions hand a run.
 */
const HANDED_OUT: {
  [N in CapabilityName]: (grant: Pick<Capabilities, N>, nodes: string[]) => Promise<unknown>;
} = {
  lease: ({ lease }) => lease(1, async (leases) => leases),
  native: async ({ native }) => native,
  cluster: async ({ cluster }) => cluster,
  clusterNode: async ({ clusterNode }, nodes) => nodes.map((address) => clusterNode(address)),
  slotTurn: ({ slotTurn }) => slotTurn(16_383, async () => null),
  queueTurn: ({ queueTurn }) => queueTurn('grants-test', async (context) => context),
  nodeReads: async ({ nodeReads }, nodes) => nodes.map((address) => nodeReads(address)),
  // The atomic mode's grant, and a node of the Valkey 9.1 cluster it hands out as the admin.
  migration: async ({ migration }) => {
    if (!atomic) return migration;
    const given = await migration.atomic();
    const [first] = await given.shards();
    return [migration, given, given.clusterAdminNode(first!.address), given.clusterNode(first!.address)];
  },
};

describe('what each experiment is given', () => {
  it('only the reshard’s row names a capability holding the admin', () => {
    const withAdmin = Object.entries(EXPERIMENTS)
      .filter(([, { grant }]) => grant.some((name) => ADMIN_CAPABILITIES.includes(name)))
      .map(([name]) => name);
    assert.deepEqual(withAdmin, ['reshard']);
  });

  it('a grant is a frozen plain object holding exactly what its row names', async () => {
    const runtime = await explorerRuntime();
    for (const [name, { grant: names }] of Object.entries(EXPERIMENTS)) {
      const grant = grantOf(runtime, names);
      assert.equal(types.isProxy(grant), false, name);
      assert.equal(Object.getPrototypeOf(grant), Object.prototype, name);
      assert.ok(Object.isFrozen(grant), `${name}: frozen`);
      assert.deepEqual(Reflect.ownKeys(grant).sort(), [...names].sort(), name);
    }
  });

  it('no grant but the reshard’s reaches an admin client, by what it holds or what it hands out', async () => {
    const runtime = await explorerRuntime();
    const nodes = (await readShards(runtime.clusterAdmin)).map(({ address }) => address);
    const reached: Record<string, string[]> = {};
    for (const [name, { grant: names }] of Object.entries(EXPERIMENTS)) {
      const grant = grantOf(runtime, names);
      const handed = await Promise.all(
        names.map((capability) => HANDED_OUT[capability](grant as Capabilities, nodes)),
      );
      reached[name] = adminReached({ grant, handed }, runtime);
    }
    const others = Object.fromEntries(Object.entries(reached).filter(([name]) => name !== 'reshard'));
    assert.deepEqual(others, Object.fromEntries(Object.keys(others).map((name) => [name, []])));
    // The walk finds what it looks for: the reshard's admin, and the admin a pool or a lock would carry.
    assert.ok(reached.reshard!.length > 0, 'the reshard is given the admin');
    if (atomic) {
      const { host, port } = atomic.access.seeds[0]!;
      const node = atomic.clusterAdminNode(`${host}:${port}`);
      assert.ok(adminReached({ node }, runtime).length > 0, 'the walk finds the Valkey 9.1 admin');
      assert.ok(reached.reshard!.includes('a connection signed in as admin'), 'the atomic mode is given it');
    }
    assert.ok(adminReached({ pool: runtime.pool }, runtime).some((what) => what.includes('signed in as')));
    assert.ok(adminReached({ locks: runtime.locks }, runtime).some((what) => what.includes('signed in as')));
  });

  it(
    'the atomic mode is given a frozen object of closures, never the Valkey 9.1 runtime or its close()',
    {
      skip: valkey9.skip,
    },
    async () => {
      const runtime = await explorerRuntime();
      const given = await grantOf(runtime, ['migration']).migration.atomic();
      assert.ok(Object.isFrozen(given));
      assert.equal(Object.getPrototypeOf(given), Object.prototype);
      assert.deepEqual(Reflect.ownKeys(given).sort(), [
        'cluster',
        'clusterAdminNode',
        'clusterNode',
        'inTurn',
        'shards',
        'version',
      ]);
      assert.equal('close' in given, false);
      assert.deepEqual(
        adminReached(given, runtime).filter((what) => what.startsWith('runtime.')),
        [],
        'no member of a runtime is held',
      );
      assert.equal(given.version, valkey9.build!.version);
    },
  );

  it('no experiment module fetches a runtime or builds a grant of its own', () => {
    const root = join(projectRoot(), 'server', 'experiments');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const held = /explorer\/(runtime|atomic-runtime|grants)\.ts$/;
    const doors: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const [, what, from] of text.matchAll(
        /^(?:import|export)\s+(?!type\b)([^;]*?)\s+from\s+'([^']+)'/gms,
      )) {
        if (!held.test(from!)) continue;
        // Types and constants only: nothing that starts or returns a runtime, or builds a grant.
        const names = /^\{([^}]*)\}$/.exec(what!.trim())?.[1]?.split(',') ?? [what!];
        const values = names
          .map((name) => name.trim())
          .filter((name) => name && !name.startsWith('type ') && !/^[A-Z0-9_]+$/.test(name));
        doors.push(...values.map((value) => `${file}: ${value} from ${from}`));
      }
      for (const [, from] of text.matchAll(/\bimport\(\s*'([^']+)'/g))
        if (held.test(from!)) doors.push(`${file}: import('${from}')`);
    }
    assert.deepEqual(doors, []);
  });
});
