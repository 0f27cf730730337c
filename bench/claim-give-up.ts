// How long a claim sent through iovalkey's Cluster client, with its defaults, waits out a key by key
// migration before it gives up, on a real three-node Valkey cluster: the figures behind the hashtag dive's
// "how soon it gives up" sentence. Slot 105 (`orders`) is opened by SETSLOT; CLAIMS claims are timed
// while the queue is split (its oldest row moved alone, the rest still on the source), then CLAIMS more
// once every key has moved. Each phase prints the time to give up (median, range), the last error the
// client named, and the error replies each node counted (INFO errorstats): the path a wait takes.
// Prints figures; asserts nothing. `node bench/claim-give-up.ts` (CLAIMS=30 by default).

import { Cluster, Valkey } from 'iovalkey';
import { callFor } from '../server/contract/calls.ts';
import { IdMinter, jobKey, queueKey, rowBase, slot } from '../server/contract/keyspace/index.ts';
import { scriptFor } from '../server/executors/scripts.ts';
import { startCluster } from '../server/sandbox/cluster.ts';
import { ownerOf, readShards } from '../server/sandbox/cluster-topology.ts';
import { migrateKeys } from '../tests/support/migrate-keys.ts';

const CLAIMS = Number(process.env.CLAIMS ?? 30);
const QUEUE = 'orders';
const SLOT = slot(queueKey(QUEUE, 'pending'));
const CLAIM_KEYS = [queueKey(QUEUE, 'pending'), queueKey(QUEUE, 'active'), rowBase(QUEUE)];
const KINDS = ['ASK', 'MOVED', 'TRYAGAIN'] as const;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The error replies of each kind `node` counted since its last CONFIG RESETSTAT. */
async function errorStats(node: Valkey): Promise<Record<string, number>> {
  const info = String(await node.call('INFO', 'errorstats'));
  return Object.fromEntries(
    KINDS.map((kind) => [kind, Number(info.match(new RegExp(`errorstat_${kind}:count=(\\d+)`))?.[1] ?? 0)]),
  );
}

async function timeClaims(phase: string, client: Cluster, roles: [string, Valkey][]): Promise<void> {
  const claim = scriptFor('claim').source;
  for (const [, node] of roles) await node.call('CONFIG', 'RESETSTAT');
  const waits: number[] = [];
  const last = new Map<string, number>();
  let served = 0;
  for (let i = 0; i < CLAIMS; i += 1) {
    const started = performance.now();
    try {
      await client.eval(claim, 3, ...CLAIM_KEYS, '30000');
      served += 1;
    } catch (error) {
      waits.push(performance.now() - started);
      const kind = /Last error: (?:ReplyError: )?(\w+)/.exec((error as Error).message)?.[1] ?? '?';
      last.set(kind, (last.get(kind) ?? 0) + 1);
    }
  }
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  console.log(
    `${phase}: ${waits.length} of ${CLAIMS} claims gave up after ${seconds(Math.min(...waits))}–${seconds(Math.max(...waits))} s (median ${seconds(median(waits))} s); served ${served}`,
  );
  console.log(`  last error: ${[...last].map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
  let replies = 0;
  for (const [role, node] of roles) {
    const stats = await errorStats(node);
    replies += KINDS.reduce((sum, kind) => sum + stats[kind]!, 0);
    console.log(`  ${role}: ${KINDS.map((kind) => `${kind} ${stats[kind]}`).join(', ')}`);
  }
  // maxRedirections 16: a call that gives up has had its 17th error reply
  console.log(`  error replies per claim: ${(replies / CLAIMS).toFixed(1)}`);
}

const cluster = await startCluster();
const open: Valkey[] = [];
const client = new Cluster(cluster.seeds);
try {
  const shards = await readShards(client);
  const owner = ownerOf(shards, SLOT)!;
  const order = [owner, ...shards.filter((s) => s !== owner)];
  const [source, target, third] = order.map((s) => {
    const [host, port] = [
      s.address.slice(0, s.address.lastIndexOf(':')),
      s.address.slice(s.address.lastIndexOf(':') + 1),
    ];
    const node = new Valkey({ host, port: Number(port) });
    open.push(node);
    return node;
  }) as [Valkey, Valkey, Valkey];
  const minter = new IdMinter(7);
  const ids: string[] = [];
  for (let i = 0; i < 100; i += 1) {
    const call = callFor('enqueue', QUEUE, { id: minter.mint(), payload: `{"n":${i}}` });
    await source.eval(scriptFor('enqueue').source, 2, ...call.keys, ...call.args);
    ids.push(call.args[0]!);
  }
  const migrate = (keys: string[]) => migrateKeys(source, target, keys);
  await target.call('CLUSTER', 'SETSLOT', SLOT, 'IMPORTING', order[0]!.id);
  await source.call('CLUSTER', 'SETSLOT', SLOT, 'MIGRATING', order[1]!.id);
  const roles: [string, Valkey][] = [
    ['source', source],
    ['target', target],
    ['third node', third],
  ];
  await migrate([jobKey(QUEUE, ids[0]!)]);
  await timeClaims('split (the source holds the sets and 99 rows)', client, roles);
  const left = (await source.call('CLUSTER', 'GETKEYSINSLOT', SLOT, 1000)) as string[];
  await migrate(left);
  await timeClaims('moved (every key on the target)', client, roles);
} finally {
  client.disconnect();
  for (const node of open) node.disconnect();
  await cluster.stop();
}
