// console: up to 16 lines typed as into redis-cli, run in order on a fresh keyspace of the standalone
// node (the native identity installed). Each line is split and checked against the allow-list here;
// a refused line reaches no server, which the server's own command count shows. Every line answers
// with its reply or error, the slot of each key it named, and the commands that went over the wire.

import type { Valkey } from 'iovalkey';
import { installWireIdentity } from '../../connectors/install.ts';
import { ScriptedExecutor } from '../../executors/scripted.ts';
import { scriptFor } from '../../executors/scripts.ts';
import { WireError } from '../../executors/wire-error.ts';
import { slot, utf8 } from '../../keyspace/index.ts';
import { dumpKeyspace } from '../../conformance/keyspace-dump.ts';
import { fields, InputError, oneOf } from '../input.ts';
import type { ExplorerRuntime } from '../runtime.ts';
import { wireDuring, type WireCommand, type WireProof, type WireReply } from '../wire/recorder.ts';
import { ALLOWED, plan, type Node, type Planned } from './allow-list.ts';
import { sectionFor, type CourseSection } from './error-course.ts';
import { LineError, splitLine } from './split-line.ts';

export const CONSOLE_LIMITS = { lines: 16, lineBytes: 512 } as const;

export interface ConsoleInput {
  lines: string[];
  node: Node;
  plans: ReturnType<typeof plan>[];
}

export function parseConsoleInput(body: unknown): ConsoleInput {
  const input = fields(body, ['lines', 'node']);
  const node = oneOf(input, 'node', ['standalone', 'cluster'] as const, 'standalone');
  if (node === 'cluster') {
    throw new InputError(
      'node',
      'the console runs on "standalone" only for now: "cluster" waits for the three-node cluster sandbox',
    );
  }
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
      if (error instanceof LineError) throw new InputError(where, `${error.message} (redis-cli quoting)`);
      throw error;
    }
    if (argv.length === 0) throw new InputError(where, 'is empty; leave blank lines out');
    return plan(argv);
  });
  return { lines: lines as string[], node, plans };
}

export interface ConsoleError {
  /** The error's class (first word): EMQKEY, CROSSSLOT…, or NOT_ALLOWED for a line the console refused. */
  code: string;
  message: string;
  /** Where the course explains it. */
  learn?: CourseSection;
}

export interface ConsoleLine {
  input: string;
  command: string;
  node: Node;
  /** Each key the line names, with its slot (CRC16 of its hashtag mod 16384). */
  keys: Array<{ key: string; slot: number }>;
  outcome: 'reply' | 'error' | 'refused';
  reply?: WireReply;
  error?: ConsoleError;
  /** What went over the wire for this line, as the server received it; empty for a refused line. */
  wire: WireCommand[];
  proof: WireProof;
}

function errorOf(message: string): ConsoleError {
  const code = message.split(' ', 1)[0] ?? 'ERR';
  const learn = sectionFor(code);
  return { code, message, ...(learn ? { learn } : {}) };
}

async function send(client: Valkey, planned: Planned): Promise<WireReply> {
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
    return (await client.call('EVALSHA', scriptFor(planned.script).sha, ...args.slice(1))) as WireReply;
  }
  return (await client.call(name!.toString('latin1'), ...args)) as WireReply;
}

async function runLine(
  client: Valkey,
  cluster: () => Valkey,
  input: string,
  planned: ReturnType<typeof plan>,
): Promise<ConsoleLine> {
  if (!planned.ok) {
    // Nothing is sent; the server's own count of this connection's commands shows it.
    const { wire, proof } = await wireDuring(client, async () => {});
    return {
      input,
      command: planned.command,
      node: 'standalone',
      keys: [],
      outcome: 'refused',
      error: { code: planned.code, message: planned.message },
      wire,
      proof,
    };
  }
  const on = planned.node === 'cluster' ? cluster() : client;
  let reply: WireReply | undefined;
  let error: ConsoleError | undefined;
  const { wire, proof } = await wireDuring(on, async () => {
    try {
      reply = await send(on, planned);
    } catch (failure) {
      const wireError = WireError.from(failure);
      if (!(wireError instanceof WireError)) throw wireError;
      error = errorOf(wireError.message);
    }
  });
  return {
    input,
    command: planned.command,
    node: planned.node,
    keys: planned.keys.map((key) => ({ key: new TextDecoder().decode(key), slot: slot(key) })),
    outcome: error ? 'error' : 'reply',
    ...(error ? { error } : { reply: reply ?? null }),
    wire,
    proof,
  };
}

export async function runConsole(runtime: ExplorerRuntime, input: ConsoleInput) {
  return runtime.pool.with(1, async ([lease]) => {
    const client = lease!.client;
    // As an operator would on a native node, so the EMQ.* verbs get past the wire identity.
    const identity = runtime.native() ? (await installWireIdentity(client)).identity : null;
    // CLUSTER KEYSLOT needs a cluster-enabled node: a connection of this run's own to one node of the
    // cluster (any node answers it), so its count is ours.
    let clusterClient: Valkey | undefined;
    const cluster = () =>
      (clusterClient ??= runtime.cluster.nodes('master')[0]!.duplicate({ enableOfflineQueue: true }));
    try {
      const lines: ConsoleLine[] = [];
      for (const [i, planned] of input.plans.entries()) {
        lines.push(await runLine(client, cluster, input.lines[i]!, planned));
      }
      const after = await dumpKeyspace(client);
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
        allowed: ALLOWED,
      };
    } finally {
      clusterClient?.disconnect();
    }
  });
}
