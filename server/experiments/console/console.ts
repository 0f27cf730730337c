// console: up to 16 lines typed as into redis-cli, run in order on a fresh keyspace of the standalone
// node (the native identity installed). Each line is split and checked against the allow-list here;
// a refused line reaches no server, which the server's own command count shows. Every line answers
// with its reply or error, the slot of each key it named, and the commands that went over the wire.

import { sendRouted } from '../../executors/routed.ts';
import type { Cluster, Valkey } from 'iovalkey';
import { catalogueText } from '../../contract/catalogue/catalogue-text.ts';
import { installWireIdentity } from '../../connectors/install.ts';
import { ScriptedExecutor } from '../../executors/scripted.ts';
import { scriptFor } from '../../executors/scripts.ts';
import { WireError } from '../../executors/wire-error.ts';
import { slot, utf8 } from '../../contract/keyspace/index.ts';
import { dumpInServer } from '../../inspect/keyspace-dump.ts';
import { fields, InputError, oneOf } from '../../input/fields.ts';
import type { Grant } from '../../explorer/grants.ts';
import { wireDuring, type WireCommand, type WireProof, type WireReply } from '../../wire/recorder.ts';
import { clusterWireDuring, withOwnCluster } from '../../wire/cluster-wire.ts';
import { plan, type Node, type Planned, type Refused } from '../../contract/console/allow-list.ts';
import { allowedForms } from '../../contract/console/commands.ts';
import { checkTurnSlots, turnSlots, withSlotTurns } from './cluster-turns.ts';
import { sectionFor } from '../../contract/console/error-course.ts';
import { errorReading, replyReading } from './reply-reading.ts';
import { LineError, splitLine } from '../../contract/console/split-line.ts';
import type { ConsoleError, ConsoleLine } from '../../contract/experiments/console.ts';
import { CONSOLE_LIMITS } from '../../contract/limits.ts';

/** A line whose quoting does not close, refused by itself under the name it starts with. */
function quotingRefused(line: string, error: LineError): Refused {
  const command = (line.trim().split(/[\s"']/, 1)[0] ?? '').toUpperCase() || 'the line';
  return {
    ok: false,
    code: 'BAD_QUOTING',
    command,
    message: catalogueText('BAD_QUOTING', { command, 'where the quoting broke': error.message }),
  };
}

export interface ConsoleInput {
  lines: string[];
  node: Node;
  plans: ReturnType<typeof plan>[];
}

export function parseConsoleInput(body: unknown): ConsoleInput {
  const input = fields(body, ['lines', 'node']);
  const node = oneOf(input, 'node', ['standalone', 'cluster'] as const, 'standalone');
  const lines = input.lines;
  if (!Array.isArray(lines)) throw new InputError('lines', 'expected an array of command lines');
  if (lines.length === 0) throw new InputError('lines', 'needs at least one line');
  if (lines.length > CONSOLE_LIMITS.lines)
    throw new InputError('lines', `has ${lines.length} lines; at most ${CONSOLE_LIMITS.lines} are allowed`);
  const plans = lines.map((line, i) => {
    const where = `lines[${i}]`;
    if (typeof line !== 'string') throw new InputError(where, 'expected a string: one command as typed');
    if (!line.isWellFormed()) throw new InputError(where, 'is not valid UTF-8 (it holds a lone surrogate)');
    const bytes = utf8(line).length;
    if (bytes > CONSOLE_LIMITS.lineBytes)
      throw new InputError(where, `is ${bytes} bytes long; at most ${CONSOLE_LIMITS.lineBytes} are allowed`);
    let argv: Uint8Array[];
    try {
      argv = splitLine(line);
    } catch (error) {
      // Broken quoting refuses its own line only; the other lines still run.
      if (error instanceof LineError) return quotingRefused(line, error);
      throw error;
    }
    if (argv.length === 0) throw new InputError(where, 'is empty; leave blank lines out');
    return plan(argv, node);
  });
  if (node === 'cluster') checkTurnSlots(plans);
  return { lines: lines as string[], node, plans };
}

function errorOf(message: string): ConsoleError {
  const code = message.split(' ', 1)[0] ?? 'ERR';
  const learn = sectionFor(code);
  return { code, message, ...(learn ? { learn } : {}) };
}

async function send(client: Valkey | Cluster, planned: Planned): Promise<WireReply> {
  const [name, ...args] = planned.argv.map((bytes) => Buffer.from(bytes));
  if (planned.script) {
    const rest = planned.argv.slice(2).map((bytes) => Buffer.from(bytes).toString());
    const numkeys = Number(rest[0]);
    if (Number.isInteger(numkeys) && numkeys >= 0 && numkeys <= rest.length - 1 && /^\d+$/.test(rest[0]!)) {
      // The project's executor: EVALSHA, and on NOSCRIPT the script is loaded and sent once more.
      const reply = await new ScriptedExecutor(client).run({
        transition: planned.script,
        keys: rest.slice(1, 1 + numkeys),
        args: rest.slice(1 + numkeys),
      });
      return reply as WireReply;
    }
    // A numkeys the server refuses before it looks for the script: let it say so.
    const evalArgs = [scriptFor(planned.script).sha, ...args.slice(1)];
    return (await sendRouted(client, 'EVALSHA', planned.keys, evalArgs)) as WireReply;
  }
  return (await sendRouted(client, name!.toString('latin1'), planned.keys, args)) as WireReply;
}

/** Where a line runs and how its wire is recorded: a standalone connection, or the run's own cluster client. */
interface Target {
  client: Valkey | Cluster;
  record(act: () => Promise<void>): Promise<{ wire: WireCommand[]; proof: WireProof }>;
}

function standaloneTarget(client: Valkey): Target {
  return { client, record: (act) => wireDuring(client, act) };
}

function clusterTarget(cluster: Cluster): Target {
  return { client: cluster, record: (act) => clusterWireDuring(cluster, act) };
}

async function runLine(
  target: (node: Node) => Target,
  mode: Node,
  input: string,
  planned: ReturnType<typeof plan>,
): Promise<ConsoleLine> {
  // A line refused for its target too (a write, or a walk of the keyspace, on the cluster) was
  // refused when it was planned for that target.
  const refusal: Refused | null = planned.ok ? null : planned;
  if (refusal) {
    // Nothing is sent; the servers' own counts of the run's connections show it.
    const { wire, proof } = await target(mode).record(async () => {});
    return {
      input,
      command: refusal.command,
      node: mode,
      keys: [],
      outcome: 'refused',
      error: { code: refusal.code, message: refusal.message },
      wire,
      proof,
    };
  }
  const line = planned as Planned;
  const node: Node = mode === 'cluster' ? 'cluster' : line.node;
  const on = target(node);
  let reply: WireReply | undefined;
  let error: ConsoleError | undefined;
  const { wire, proof } = await on.record(async () => {
    try {
      reply = await send(on.client, line);
    } catch (failure) {
      const wireError = WireError.from(failure);
      if (!(wireError instanceof WireError)) throw wireError;
      error = errorOf(wireError.message);
    }
  });
  const answeredBy = wire.at(-1)?.node;
  const reading = error ? errorReading(line, error.code) : replyReading(line, reply ?? null);
  return {
    input,
    command: line.command,
    node,
    ...(answeredBy ? { answeredBy } : {}),
    keys: line.keys.map((key) => ({ key: new TextDecoder().decode(key), slot: slot(key) })),
    outcome: error ? 'error' : 'reply',
    ...(error ? { error } : { reply: reply ?? null }),
    ...(reading ? { reading } : {}),
    wire,
    proof,
  };
}

async function runLines(input: ConsoleInput, target: (node: Node) => Target): Promise<ConsoleLine[]> {
  const lines: ConsoleLine[] = [];
  for (const [i, planned] of input.plans.entries()) {
    lines.push(await runLine(target, input.node, input.lines[i]!, planned));
  }
  return lines;
}

export async function runConsole(
  grant: Grant<'lease' | 'native' | 'cluster' | 'slotTurn'>,
  input: ConsoleInput,
) {
  if (input.node === 'cluster') {
    // The shared cluster: nothing is written there, so no keyspace of the run's own is needed; the
    // run reads in the turn of every slot it names, as any other run on those queues would.
    return withSlotTurns(grant, turnSlots(input.plans), () =>
      withOwnCluster(grant.cluster, async (cluster) => ({
        node: input.node,
        identity: null,
        lines: await runLines(input, () => clusterTarget(cluster)),
        keyspace: null,
        allowed: allowedForms(input.node),
      })),
    );
  }
  // CLUSTER KEYSLOT goes to the cluster (the standalone Valkey 8 refuses it; a standalone 9.1 would
  // answer): a kept cluster client is taken for the run when a line asks for one (a client built per
  // run cost about 4 ms of the site's CPU, three times the run).
  const needsCluster = input.plans.some((planned) => planned.ok && planned.node === 'cluster');
  return grant.lease(1, async ([lease]) => {
    const client = lease!.client;
    // As an operator would on a native node, so the EMQ.* verbs get past the wire identity.
    const identity = grant.native ? (await installWireIdentity(client)).identity : null;
    const runWith = async (cluster: Cluster | null) => {
      const target = (node: Node) =>
        node === 'cluster' && cluster ? clusterTarget(cluster) : standaloneTarget(client);
      const lines = await runLines(input, target);
      const after = await dumpInServer(client);
      return {
        node: input.node,
        identity,
        lines,
        keyspace: Object.entries(after).map(([key, { type, value }]) => ({
          key,
          slot: slot(key),
          type,
          value,
        })),
        allowed: allowedForms(input.node),
      };
    };
    return needsCluster ? withOwnCluster(grant.cluster, runWith) : runWith(null);
  });
}
