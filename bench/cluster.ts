// The scripted executor on the three-node cluster, through a cluster client (iovalkey's Cluster, which
// routes each pipeline to the node owning the queue's slot), beside the same executor on a standalone
// node, in the same run: ops/s per transition, wall clock, pipelined, the fastest of ROUNDS interleaved rounds.
// Run by `npm run bench` after the server-µs tables (bench/transitions.ts), or alone. Prints figures;
// asserts nothing.

import { Valkey, type Cluster } from 'iovalkey';
import type { Executor } from '../server/executors/executor.ts';
import { ScriptedExecutor } from '../server/executors/scripted.ts';
import { CORE_TRANSITIONS } from '../server/contract/transitions.ts';
import { queueSlot } from '../server/contract/keyspace/index.ts';
import { clusterClient, startCluster } from '../server/sandbox/cluster.ts';
import { ownerOf, readShards } from '../server/sandbox/cluster-topology.ts';
import { startValkeyNode } from '../server/sandbox/valkey-process.ts';
import { runChunked, WORKLOADS } from './workloads.ts';

const OPS = Number(process.env.BENCH_OPS ?? 2_000);
/** The fastest of ROUNDS interleaved rounds: on a loaded machine the fastest is the least disturbed. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

type Target = { name: string; executor: Executor; flush: () => Promise<unknown> };

async function opsPerSecond(target: Target, transition: (typeof CORE_TRANSITIONS)[number]) {
  const workload = WORKLOADS[transition];
  await target.flush();
  const ids = await workload.prepare(target.executor, OPS);
  const started = performance.now();
  await runChunked(target.executor, workload.calls(ids));
  return OPS / ((performance.now() - started) / 1000);
}

function fastest(values: number[]): number {
  return Math.max(...values);
}

export async function benchCluster(): Promise<void> {
  const [node, cluster] = await Promise.all([startValkeyNode(), startCluster()]);
  const standalone = new Valkey(node.url);
  const client: Cluster = clusterClient(cluster.seeds, { redisOptions: cluster.admin ?? {} });
  let direct: Valkey | undefined;
  try {
    const shards = await readShards(client);
    const owner = ownerOf(shards, queueSlot('bench'))!;
    // The owner node through a plain client: the cluster-enabled server's cost without the cluster client's.
    direct = new Valkey(cluster.url.split(',')[shards.indexOf(owner)]!);
    const targets: Target[] = [
      { name: 'standalone', executor: new ScriptedExecutor(standalone), flush: () => standalone.flushdb() },
      {
        name: '3-node cluster',
        executor: new ScriptedExecutor(client),
        flush: () => Promise.all(client.nodes('master').map((n) => n.flushdb())),
      },
      { name: 'owner, plain client', executor: new ScriptedExecutor(direct), flush: () => direct!.flushdb() },
    ];
    console.log(
      `scripted executor, ops/s (wall clock, pipelined, fastest of ${ROUNDS} rounds of ${OPS}): a standalone node and the ` +
        `three-node cluster through a cluster client (queue "bench" on slot ${queueSlot('bench')}, ` +
        `owned by ${owner.address}); and the owner node through a plain client`,
    );
    console.log(
      [
        'transition'.padEnd(12),
        'standalone'.padStart(14),
        'cluster'.padStart(14),
        'ratio'.padStart(8),
        'owner plain'.padStart(14),
        'ratio'.padStart(8),
      ].join(''),
    );
    for (const transition of CORE_TRANSITIONS) {
      const figures = new Map<string, number[]>(targets.map((t) => [t.name, []]));
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const target of targets) figures.get(target.name)!.push(await opsPerSecond(target, transition));
      }
      const [alone, clustered, plain] = targets.map((t) => fastest(figures.get(t.name)!));
      const ops = (value: number) => Math.round(value).toLocaleString('en').padStart(14);
      const ratio = (value: number) => `${(value / alone!).toFixed(2)}x`.padStart(8);
      console.log(
        [
          transition.padEnd(12),
          ops(alone!),
          ops(clustered!),
          ratio(clustered!),
          ops(plain!),
          ratio(plain!),
        ].join(''),
      );
    }
    console.log(
      'ratio: ÷ standalone. A gap between "cluster" and "owner plain" is the cluster client’s own cost.',
    );
  } finally {
    standalone.disconnect();
    client.disconnect();
    direct?.disconnect();
    await Promise.all([node.stop(), cluster.stop()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCluster();
