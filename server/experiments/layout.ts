// native layout check: a native call whose declared keys the reader may edit. The exact call is
// accepted; a key changed by one byte is refused with EMQKEY naming its position and the byte; an
// empty queue name is refused; the exact call, sent through a cluster client to the node that owns its
// slot, is refused there with EMQWIRE. Every refusal is shown to write nothing: the keyspace is read
// before and after.

import { installWireIdentity } from '../connectors/install.ts';
import { NativeExecutor } from '../executors/native.ts';
import { CORE_TRANSITIONS, TRANSITIONS, type Call, type CoreTransition } from '../contract/transitions.ts';
import { exactCall } from '../contract/exact-call.ts';
import { settle, WireError } from '../executors/wire-error.ts';
import { isBrandedId, mintJobId } from '../contract/keyspace/index.ts';
import { compareKeyspaces, dumpInServer } from '../inspect/keyspace-dump.ts';
import { fields, InputError, list, oneOf, queueName, text, textItem } from '../input/fields.ts';
import { LAYOUT_KEYS, LIMITS } from '../contract/limits.ts';
import type { Grant } from '../explorer/grants.ts';
import { clusterWireDuring, withOwnCluster } from '../wire/cluster-wire.ts';
import { RecordingExecutor } from '../wire/recording-executor.ts';
import type { LayoutRefusal, LayoutVerdict } from '../contract/experiments/layout.ts';

export interface LayoutInput {
  verb: CoreTransition;
  queue: string;
  /** The job id of the exact call; fixed by the page so that an edit changes only what the reader changed. */
  id: string;
  keys: string[] | undefined;
}

export function parseLayoutInput(body: unknown): LayoutInput {
  const input = fields(body, ['verb', 'queue', 'id', 'keys']);
  const verb = oneOf(input, 'verb', CORE_TRANSITIONS, 'enqueue');
  const queue = queueName(input, 'queue', 'orders');
  const id = text(input, 'id', LIMITS.idBytes, true) ?? mintJobId();
  if (!isBrandedId(id) || !id.startsWith('JOB')) {
    throw new InputError(
      'id',
      `expected a branded job id such as JOB0Nb1VTbfnu4, found ${JSON.stringify(id)}`,
    );
  }
  const keys = list(input, 'keys', LAYOUT_KEYS, textItem(LIMITS.keyBytes));
  if (keys?.length === 0) throw new InputError('keys', 'needs at least one key');
  return { verb, queue, id, keys };
}

/** Reads the position, byte offset and expected key out of an EMQKEY message (docs/wire.md). */
export function parseEmqKey(message: string): LayoutRefusal {
  const differs = /^EMQKEY key (\d+) differs at byte (\d+): expected '(.*)' but found '.*'$/s.exec(message);
  if (differs) return { position: Number(differs[1]), offset: Number(differs[2]), expected: differs[3]! };
  const empty = /^EMQKEY key (\d+) has an empty queue name at byte (\d+)/.exec(message);
  if (empty) return { position: Number(empty[1]), offset: Number(empty[2]), expected: null };
  return { position: null, offset: null, expected: null };
}

async function outcome(run: () => Promise<unknown>): Promise<LayoutVerdict> {
  const reply = await settle(run);
  if (!(reply instanceof WireError)) return { accepted: true, reply };
  return {
    accepted: false,
    error: reply.message,
    errorClass: reply.errorClass,
    ...(reply.errorClass === 'EMQKEY' ? parseEmqKey(reply.message) : {}),
  };
}

export async function runLayout(grant: Grant<'lease' | 'native' | 'cluster'>, input: LayoutInput) {
  if (!grant.native) {
    return {
      available: false as const,
      message: 'the native module is not loaded on this sandbox, so there is no EMQ.* to call',
    };
  }
  const exact = exactCall(input.verb, input.queue, input.id);
  const call: Call = { ...exact.call, keys: input.keys ?? exact.call.keys };
  const command = TRANSITIONS[input.verb].command;

  const standalone = await grant.lease(1, async ([lease]) => {
    const native = new RecordingExecutor(new NativeExecutor(lease!.client), lease!.client);
    await installWireIdentity(lease!.client);
    for (const step of exact.setup) await native.run(step);
    const before = await dumpInServer(lease!.client);
    const result = await outcome(() => native.run(call));
    const after = await dumpInServer(lease!.client);
    const [setup, own] = [native.calls.slice(0, -1), native.calls.at(-1)!];
    return {
      ...result,
      keyspaceUnchanged: compareKeyspaces(before, after).length === 0,
      /** The calls that put a job where the verb finds one, then the call itself. */
      setupWire: setup.flatMap(({ wire }) => wire),
      wire: own.wire,
      proof: own.proof,
    };
  });
  // The reader's call on the cluster: routing, then the layout, then the server mode answer, in that
  // order; every EMQ.* is refused there, so nothing is written.
  const cluster = await withOwnCluster(grant.cluster, async (client) => {
    let result: Awaited<ReturnType<typeof outcome>> | undefined;
    const recorded = await clusterWireDuring(client, async () => {
      result = await outcome(() => new NativeExecutor(client).run(call));
    });
    return { ...result!, ...recorded };
  });
  return {
    available: true as const,
    verb: input.verb,
    id: input.id,
    command,
    expectedKeys: exact.call.keys,
    keys: call.keys,
    args: call.args,
    edited:
      call.keys.some((key, i) => key !== exact.call.keys[i]) || call.keys.length !== exact.call.keys.length,
    standalone,
    cluster,
  };
}
