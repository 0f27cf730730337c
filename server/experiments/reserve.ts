// the reserve: on fresh keyspaces, the two ways {emq}:version comes to hold a wire identity — claimed by
// a wire 4 connector, or installed by an operator on a native node and only read there — and the
// refusals that keep speakers who disagree out of one keyspace.

import { installWireIdentity } from '../connectors/install.ts';
import { FenceError, type FenceStep } from '../connectors/fence.ts';
import { connectWire4 } from '../connectors/wire4.ts';
import { connectWire6 } from '../connectors/wire6.ts';
import { callFor } from '../contract/calls.ts';
import { NativeExecutor } from '../executors/native.ts';
import { TRANSITIONS } from '../contract/transitions.ts';
import { settle, WireError } from '../executors/wire-error.ts';
import { mintJobId, versionKey } from '../contract/keyspace/index.ts';
import type { Valkey } from 'iovalkey';
import { RESERVE_STEPS, type ReservePlanStep } from '../contract/experiments/reserve-plan.ts';
import { fields } from '../input/fields.ts';
import { wireDuring, type ReadAfter } from '../wire/recorder.ts';
import type { Grant } from '../explorer/grants.ts';
import type { ReserveStep } from '../contract/experiments/reserve.ts';

export function parseReserveInput(body: unknown): Record<string, never> {
  fields(body ?? {}, []);
  return {};
}

/** What {emq}:version holds after a step: read in the same write as the step's closing CLIENT INFO. */
const IDENTITY_AFTER: ReadAfter = ['GET', versionKey()];

/** A step's wire and proof, and the identity read behind them. */
function stepWire({ wire, proof, read }: Awaited<ReturnType<typeof wireDuring>>) {
  if (read instanceof Error) throw read;
  return { wire, proof, identity: (read ?? null) as string | null };
}

/** A connector's step: its fence runs on the leased keyspace's own connection, recorded whole. */
async function connector(
  client: Valkey,
  connect: () => Promise<{ fence: { outcome: string; steps: FenceStep[] }; close(): Promise<void> }>,
) {
  let result: { outcome: 'ok' | 'refused'; commands: FenceStep[]; message: string } | undefined;
  const recorded = await wireDuring(
    client,
    async () => {
      try {
        const connection = await connect();
        await connection.close();
        result = {
          outcome: 'ok',
          commands: connection.fence.steps,
          message: `fence ${connection.fence.outcome}`,
        };
      } catch (error) {
        if (!(error instanceof FenceError)) throw error;
        result = { outcome: 'refused', commands: error.steps, message: error.message };
      }
    },
    IDENTITY_AFTER,
  );
  return { ...result!, ...stepWire(recorded) };
}

async function nativeWrite(client: Valkey) {
  const call = callFor('enqueue', 'orders', { id: mintJobId(), payload: 'hello' });
  const command = {
    command: `${TRANSITIONS.enqueue.command} ${call.keys.length} ${call.keys.join(' ')} ${call.args.join(' ')}`,
    reply: null as string | null,
  };
  let reply: unknown;
  const recorded = await wireDuring(
    client,
    async () => {
      reply = await settle(() => new NativeExecutor(client).run(call));
    },
    IDENTITY_AFTER,
  );
  if (reply instanceof WireError) {
    return {
      outcome: 'refused' as const,
      commands: [{ ...command, reply: reply.message }],
      message: reply.message,
      ...stepWire(recorded),
    };
  }
  return {
    outcome: 'ok' as const,
    commands: [{ ...command, reply: String(reply) }],
    message: `enqueued (${String(reply)})`,
    ...stepWire(recorded),
  };
}

export async function runReserve(grant: Grant<'lease' | 'native'>) {
  return grant.lease(2, async ([a, b]) => {
    const steps: ReserveStep[] = [];
    const record = (planned: ReservePlanStep, result: Omit<ReserveStep, keyof ReservePlanStep>) =>
      steps.push({ ...planned, ...result });

    record(RESERVE_STEPS.claim, await connector(a!.client, () => connectWire4(a!.client)));
    if (grant.native) record(RESERVE_STEPS.writeClaimed, await nativeWrite(a!.client));
    record(RESERVE_STEPS.readUninstalled, await connector(b!.client, () => connectWire6(b!.client)));
    let install: Awaited<ReturnType<typeof installWireIdentity>> | undefined;
    const installed = await wireDuring(
      b!.client,
      async () => {
        install = await installWireIdentity(b!.client);
      },
      IDENTITY_AFTER,
    );
    record(RESERVE_STEPS.install, {
      outcome: 'ok',
      commands: [{ command: `SET ${versionKey()} ${install!.identity} NX GET`, reply: install!.previous }],
      message: `installed ${install!.identity}`,
      ...stepWire(installed),
    });
    record(RESERVE_STEPS.readInstalled, await connector(b!.client, () => connectWire6(b!.client)));
    if (grant.native) record(RESERVE_STEPS.writeInstalled, await nativeWrite(b!.client));
    record(RESERVE_STEPS.refuseNative, await connector(b!.client, () => connectWire4(b!.client)));
    return { native: grant.native, steps };
  });
}
