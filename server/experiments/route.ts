// route: where a queue lives on the three-node cluster, shown by the cluster itself. The queue's slot
// (ours and CLUSTER KEYSLOT's), every node's ranges from CLUSTER SHARDS, the owner; the MOVED a node
// that does not own the slot answers, word for word; an enqueue and a claim through a cluster client,
// each key found on the node that stored it — all one node; the same keys without braces, scattered
// over slots and nodes, and the CROSSSLOT a script declaring them gets; and the native EMQ.ENQUEUE
// sent to a non-owner (MOVED) and to the owner (EMQWIRE), with proof that nothing was written.

import { callFor } from '../contract/calls.ts';
import { NativeExecutor } from '../executors/native.ts';
import { ScriptedExecutor } from '../executors/scripted.ts';
import { scriptFor } from '../executors/scripts.ts';
import { TRANSITIONS, type Call, type Reply } from '../contract/transitions.ts';
import { isReplyError } from '../executors/wire-error.ts';
import { mintJobId, queueKey, slot, versionKey } from '../contract/keyspace/index.ts';
import { ownerOf, type ShardNode } from '../sandbox/cluster-topology.ts';
import { withQueueSlot } from '../explorer/cluster-run.ts';
import { isRestarting, NodeRestartedError } from '../catalogue/restarting.ts';
import { fields, queueName } from '../input/fields.ts';
import type { ExplorerRuntime } from '../explorer/runtime.ts';
import type { PlacedKey, RouteResult, Words } from '../contract/experiments/route.ts';

export interface RouteInput {
  queue: string;
}

export function parseRouteInput(body: unknown): RouteInput {
  return { queue: queueName(fields(body ?? {}, ['queue']), 'queue', 'orders') };
}

function evalWords(call: Call, sha: string): Words {
  return ['EVALSHA', sha, String(call.keys.length), ...call.keys, ...call.args];
}

function nativeWords(call: Call): Words {
  return [TRANSITIONS[call.transition].command!, String(call.keys.length), ...call.keys, ...call.args];
}

/** The error a call gets, word for word; a reply where an error was expected is named as such. */
async function errorOf(run: () => Promise<unknown>): Promise<string> {
  try {
    return `(no error) ${JSON.stringify(await run())}`;
  } catch (error) {
    // A node restarting answers CLUSTERDOWN: not the answer being shown, so the run goes again.
    if (isRestarting(error)) throw error;
    if (isReplyError(error)) return error.message;
    throw error;
  }
}

function nonOwnerOf(shards: ShardNode[], owner: ShardNode): ShardNode {
  // The next node after the owner, in slot order: the same one every run, for a given owner.
  const index = shards.indexOf(owner);
  return shards[(index + 1) % shards.length]!;
}

function place(key: string, shards: ShardNode[]): PlacedKey {
  const n = slot(key);
  return { key, slot: n, owner: ownerOf(shards, n)?.address ?? 'unserved' };
}

export async function runRoute(runtime: ExplorerRuntime, input: RouteInput): Promise<RouteResult> {
  const { queue } = input;
  return withQueueSlot(runtime, queue, async ({ slot: n, shards, owner }) => {
    const key = queueKey(queue, 'pending');
    const serverSlot = Number(await runtime.cluster.call('CLUSTER', 'KEYSLOT', key));
    const other = nonOwnerOf(shards, owner);
    const asOwner = runtime.clusterNode(owner.address);
    const asOther = runtime.clusterNode(other.address);
    const adminOwner = runtime.clusterAdminNode(owner.address);

    // A node that does not own the slot does not serve the key: it names the owner.
    const moved = {
      asked: other.address,
      command: ['GET', key],
      reply: await errorOf(() => asOther.get(key)),
    };

    // The native enqueue: routed away by a non-owner, refused by the owner's module; nothing written.
    const jobId = mintJobId();
    const enqueue = callFor('enqueue', queue, { id: jobId, payload: '{"hello":"cluster"}' });
    const countKeys = () => adminOwner.exists(...enqueue.keys);
    const countSlot = async () => Number(await adminOwner.call('CLUSTER', 'COUNTKEYSINSLOT', n));
    const [keysBefore, slotKeysBefore] = await Promise.all([countKeys(), countSlot()]);
    const nonOwnerReply = await errorOf(() => new NativeExecutor(asOther).run(enqueue));
    const ownerReply = await errorOf(() => new NativeExecutor(asOwner).run(enqueue));
    const [keysAfter, slotKeysAfter] = await Promise.all([countKeys(), countSlot()]);

    // The same enqueue and a claim through the scripted executor on a cluster client: it routes each
    // call to the owner. After each, the keys it wrote are looked for on every node directly: the node
    // that holds one answers 1, the others answer MOVED.
    // Every node is asked for each key, at once: the node that holds it says 1.
    // A key found on no node was lost with its node (killed and back empty between the write and
    // this read): the run goes again rather than show a proof with a hole in it.
    const locate = (written: string[]) =>
      Promise.all(
        written.map(async (key) => {
          const found = await Promise.all(
            shards.map(({ address }) =>
              runtime
                .clusterAdminNode(address)
                .exists(key)
                .catch((error: unknown) => {
                  if (isRestarting(error)) throw error;
                  return 0; // MOVED: not this node's key
                }),
            ),
          );
          const at = found.lastIndexOf(1);
          if (at < 0) throw new NodeRestartedError(`${key} was written and then found on no node`);
          return { key, storedOn: shards[at]!.address };
        }),
      );
    const scripted = new ScriptedExecutor(runtime.cluster);
    const claim = callFor('claim', queue, { lease_ms: 30_000 });
    const steps: Array<{ command: Words; reply: Reply }> = [];
    const keys: Array<{ key: string; storedOn: string }> = [];
    steps.push({ command: evalWords(enqueue, scriptFor('enqueue').sha), reply: await scripted.run(enqueue) });
    keys.push(...(await locate(enqueue.keys)));
    steps.push({ command: evalWords(claim, scriptFor('claim').sha), reply: await scripted.run(claim) });
    keys.push(...(await locate([claim.keys[1]!])));

    // The counterfactual: the claim's keys without braces hash whole, each to a slot of its own.
    const bare = claim.keys.map((braced) => braced.replace(`{${queue}}`, queue));
    const scatteredCall: Call = { ...claim, keys: bare };
    const scatteredKeys = bare.map((bareKey) => place(bareKey, shards));
    const scatteredReply = await errorOf(() => scripted.run(scatteredCall));

    const reserve = place(versionKey(), shards);
    return {
      queue,
      key,
      slot: n,
      serverSlot,
      nodes: shards.map(({ address, slots, replicas }) => ({
        address,
        slots,
        ...(replicas && { replicas }),
      })),
      owner: owner.address,
      reserve: { ...reserve, sharesSlot: reserve.slot === n },
      moved,
      served: {
        jobId,
        steps,
        keys,
        oneNode: new Set(keys.map((k) => k.storedOn)).size === 1,
      },
      scattered: {
        keys: scatteredKeys,
        nodeCount: new Set(scatteredKeys.map((k) => k.owner)).size,
        command: evalWords(scatteredCall, scriptFor('claim').sha),
        reply: scatteredReply,
      },
      native: {
        command: nativeWords(enqueue),
        nonOwner: { asked: other.address, reply: nonOwnerReply },
        owner: { asked: owner.address, reply: ownerReply },
        keysBefore,
        keysAfter,
        slotKeysBefore,
        slotKeysAfter,
        written: keysAfter !== keysBefore || slotKeysAfter !== slotKeysBefore,
      },
    };
  });
}
