// reshard: a queue's slot moved, live, from its owner to another node the way the Valkey Cluster spec
// moves a slot — CLUSTER SETSLOT … IMPORTING on the target, … MIGRATING on the source, CLUSTER
// GETKEYSINSLOT, MIGRATE … KEYS …, CLUSTER SETSLOT … NODE on every node — with each step's command and
// reply, the ASK a client meets mid-migration, proof that every key of the queue moved together, and a
// claim served by the new owner. Then the slot is put back the same way. One reshard at a time (across
// processes too), holding the slot, so no other reader's run sees the slot half-moved; every command that
// changes the layout goes on the admin's connection, never the reader's account.

import { callFor } from '../executors/calls.ts';
import { ScriptedExecutor } from '../executors/scripted.ts';
import { scriptFor } from '../executors/scripts.ts';
import type { Reply } from '../executors/transitions.ts';
import { mintJobId, queueKey, slot } from '../keyspace/index.ts';
import { agreedOwner } from '../sandbox/cluster-check.ts';
import { readShards } from '../sandbox/cluster-topology.ts';
import { inMigrationTurn, moveSlot } from '../sandbox/slot-migration.ts';
import { isTransient, withQueueSlot } from './cluster-run.ts';
import { parseRouteInput, type RouteInput, type Words } from './route.ts';
import type { ExplorerRuntime } from './runtime.ts';

/** The same input as route: a queue name (default orders). */
export type ReshardInput = RouteInput;
export const parseReshardInput = parseRouteInput;

export interface ReshardStep {
  /** The node the command went to (`host:port`). */
  node: string;
  command: Words;
  reply: unknown;
}

export interface ReshardResult {
  queue: string;
  slot: number;
  from: string;
  to: string;
  /** The jobs enqueued before the move, oldest first. */
  jobs: string[];
  /** The migration, step by step. */
  steps: ReshardStep[];
  /** Mid-migration: the source answers ASK for a key it no longer holds; the target serves it only after ASKING. */
  ask: {
    command: Words;
    source: { asked: string; reply: string };
    targetWithoutAsking: { asked: string; reply: string };
    targetAfterAsking: { asked: string; command: Words; reply: unknown };
  };
  /** Every key of the queue, before and after: all on the target, none left on the source. */
  moved: { keys: string[]; onTarget: string[]; leftOnSource: number; together: boolean };
  /** A claim through a cluster client after the move: served by the new owner. */
  claim: { command: Words; reply: Reply; activeOn: string };
  /** The slot put back the same way. */
  restore: { steps: ReshardStep[]; owner: string; back: boolean };
  leftBehind: number;
}

async function errorText(run: () => Promise<unknown>): Promise<string> {
  try {
    return `(no error) ${JSON.stringify(await run())}`;
  } catch (error) {
    if (isTransient(error)) throw error;
    if (error instanceof Error && error.name === 'ReplyError') return error.message;
    throw error;
  }
}

export async function runReshard(runtime: ExplorerRuntime, input: ReshardInput): Promise<ReshardResult> {
  const { queue } = input;
  const n = slot(queueKey(queue, 'pending'));
  return inMigrationTurn(runtime.migrations, n, (turn, views) =>
    withQueueSlot(runtime, queue, async ({ shards }) => {
      const ownerId = agreedOwner(views, n);
      const source = shards.find((shard) => shard.id === ownerId);
      if (!source) throw new Error(`the nodes do not agree who owns slot ${n}`);
      const target = shards[(shards.indexOf(source) + 1) % shards.length]!;
      const scripted = new ScriptedExecutor(runtime.cluster);
      const jobs = [mintJobId(), mintJobId(), mintJobId()];
      for (const [i, id] of jobs.entries()) {
        await scripted.run(callFor('enqueue', queue, { id, payload: `{"job":${i + 1}}` }));
      }
      const pending = queueKey(queue, 'pending');
      const read: Words = ['ZRANGE', pending, '0', '-1'];
      const steps: ReshardStep[] = [];
      const restoreSteps: ReshardStep[] = [];
      let ask: ReshardResult['ask'] | undefined;
      const keys: string[] = [];
      await moveSlot(runtime.migrations, turn, views, n, source, target, (step) => steps.push(step), {
        hooks: {
          batchMoved: async (batch, left) => {
            keys.push(...batch);
            if (left > 0) return;
            // Mid-migration, as a reader's account: the source no longer holds the key and says ASK;
            // the target serves it only to a client that says ASKING first.
            const asSource = runtime.clusterNode(source.address);
            const asTarget = runtime.clusterNode(target.address);
            const [, asked] = (await asTarget.pipeline().call('ASKING').zrange(pending, 0, -1).exec())!;
            ask = {
              command: read,
              source: {
                asked: source.address,
                reply: await errorText(() => asSource.zrange(pending, 0, -1)),
              },
              targetWithoutAsking: {
                asked: target.address,
                reply: await errorText(() => asTarget.zrange(pending, 0, -1)),
              },
              targetAfterAsking: {
                asked: target.address,
                command: ['ASKING', ...read],
                reply: asked![0] ? asked![0].message : asked![1],
              },
            };
          },
        },
      });
      {
        const onTarget = (await runtime
          .clusterAdminNode(target.address)
          .call('CLUSTER', 'GETKEYSINSLOT', n, 100)) as string[];
        const leftOnSource = Number(
          await runtime.clusterAdminNode(source.address).call('CLUSTER', 'COUNTKEYSINSLOT', n),
        );

        // A claim through the cluster client: it learns the new owner from MOVED and is served there.
        const claimCall = callFor('claim', queue, { lease_ms: 30_000 });
        const reply = await scripted.run(claimCall);
        const active = queueKey(queue, 'active');
        const activeOn = (await runtime.clusterAdminNode(target.address).exists(active))
          ? target.address
          : 'not on the target';

        // Put it back the same way, the jobs (one now active) with it.
        await moveSlot(runtime.migrations, turn, views, n, target, source, (step) => restoreSteps.push(step));
        const back = (await readShards(runtime.clusterAdmin)).find((s) =>
          s.slots.some(([a, b]) => n >= a && n <= b),
        );
        return {
          queue,
          slot: n,
          from: source.address,
          to: target.address,
          jobs,
          steps,
          ask: ask!,
          moved: {
            keys: [...keys].sort(),
            onTarget: [...onTarget].sort(),
            leftOnSource,
            together: leftOnSource === 0 && keys.length === onTarget.length,
          },
          claim: {
            command: ['EVALSHA', scriptFor('claim').sha, '3', ...claimCall.keys, ...claimCall.args],
            reply,
            activeOn,
          },
          restore: { steps: restoreSteps, owner: back?.address ?? 'none', back: back?.id === source.id },
        };
      }
    }),
  );
}
