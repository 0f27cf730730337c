// The wire of a run: every command a connection sent, in order, with the reply the server gave,
// recorded where iovalkey hands each command to its socket (pipelines and handshakes included). The
// proof beside it is read from the server (CLIENT INFO): the bytes it received on that connection must
// equal the RESP bytes of the commands recorded. Its command count (tot-cmds) equals their number too,
// but for the calls a script made inside the server (counted) and commands refused before they ran
// (CROSSSLOT, MOVED, ASK: not counted).

import type { Valkey } from 'iovalkey';
import { reprCommand } from './repr.ts';

export type WireReply = string | number | null | WireReply[] | { error: string };

export interface WireCommand {
  /** The command as redis-cli prints it, exact in bytes. */
  line: string;
  reply: WireReply;
  /** The node (`host:port`) it went to, when a run spoke to a cluster. */
  node?: string;
}

export interface WireProof {
  /** Commands the server says it ran for this connection meanwhile (CLIENT INFO tot-cmds). */
  reached: number;
  /** Commands recorded here: `reached`, less the calls scripts made, plus the commands refused unrun. */
  listed: number;
  /** Bytes the server says it received on this connection meanwhile (CLIENT INFO tot-net-in). */
  bytesReceived: number;
  /** The RESP bytes of the commands recorded; equal to `bytesReceived` when nothing else was sent. */
  bytesListed: number;
}

interface SentCommand {
  name: string;
  args: unknown[];
  resolve(value: unknown): void;
  reject(error: Error): void;
}

const encoder = new TextEncoder();

function asBytes(arg: unknown): Uint8Array {
  if (arg instanceof Uint8Array) return arg;
  return encoder.encode(String(arg));
}

/** The length of a command as RESP puts it on the wire: *<n>, then $<len> and the bytes per argument. */
export function respLength(argv: readonly Uint8Array[]): number {
  let length = `*${argv.length}\r\n`.length;
  for (const arg of argv) length += `$${arg.length}\r\n`.length + arg.length + 2;
  return length;
}

/** CLIENT INFO's own bytes, which the second reading counts. */
export const CLIENT_INFO_BYTES = respLength([encoder.encode('CLIENT'), encoder.encode('INFO')]);

export async function clientCounters(client: Valkey): Promise<{ commands: number; bytesIn: number }> {
  const info = String(await client.call('CLIENT', 'INFO'));
  const commands = / tot-cmds=(\d+)/.exec(info);
  const bytesIn = / tot-net-in=(\d+)/.exec(info);
  if (!commands || !bytesIn) throw new Error('CLIENT INFO did not report tot-cmds and tot-net-in');
  return { commands: Number(commands[1]), bytesIn: Number(bytesIn[1]) };
}

/** Replies over this many characters are cut (INFO's ready-check reply is 4 KB of server detail). */
const REPLY_CHARS = 240;

function settled(value: unknown): WireReply {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'string' || value instanceof Uint8Array) {
    const text = typeof value === 'string' ? value : new TextDecoder().decode(value);
    return text.length > REPLY_CHARS ? `${text.slice(0, REPLY_CHARS)}… (${text.length} characters)` : text;
  }
  if (Array.isArray(value)) return value.map(settled);
  return String(value);
}

/** A password never leaves the server in a wire: AUTH's and HELLO … AUTH's are masked (bytes still counted). */
function redacted(name: string, argv: Uint8Array[]): Uint8Array[] {
  const masked = encoder.encode('(password)');
  const lower = name.toLowerCase();
  if (lower === 'auth') return argv.map((arg, i) => (i === argv.length - 1 && i > 0 ? masked : arg));
  if (lower === 'hello') {
    const at = argv.findIndex((arg) => new TextDecoder().decode(arg).toUpperCase() === 'AUTH');
    if (at > 0) return argv.map((arg, i) => (i === at + 2 ? masked : arg));
  }
  return argv;
}

/** Records every command `client` sends until stop(); the replies fill in as they arrive. */
export function recordWire(
  client: Valkey,
  options: { sink?: WireCommand[]; node?: string } = {},
): { commands: WireCommand[]; bytes(): number; stop(): void } {
  const commands: WireCommand[] = options.sink ?? [];
  let bytes = 0;
  const original = client.sendCommand;
  const patched = function (this: Valkey, command: SentCommand, ...rest: unknown[]) {
    const sent = (original as (...args: unknown[]) => unknown).call(this, command, ...rest);
    // Only a command written to the socket is recorded: one queued while the connection is not ready
    // comes back through here when the queue is flushed, and a rejected one never left.
    const queue = (this as unknown as { commandQueue: { peekBack(): { command: unknown } | undefined } })
      .commandQueue;
    if (queue.peekBack()?.command !== command) return sent;
    const argv = [encoder.encode(command.name), ...command.args.map(asBytes)];
    const entry: WireCommand = {
      line: reprCommand(redacted(command.name, argv)),
      reply: null,
      ...(options.node ? { node: options.node } : {}),
    };
    bytes += respLength(argv);
    commands.push(entry);
    // This send's own answer: a cluster client sends one command again after MOVED or ASK, so the
    // answer is caught as it arrives (then the handlers before ours run) rather than from its promise.
    const { resolve, reject } = command;
    command.resolve = (value) => {
      Object.assign(command, { resolve, reject });
      entry.reply = settled(value);
      resolve.call(command, value);
    };
    command.reject = (error) => {
      Object.assign(command, { resolve, reject });
      entry.reply = { error: error.message };
      reject.call(command, error);
    };
    return sent;
  };
  (client as unknown as { sendCommand: unknown }).sendCommand = patched;
  return {
    commands,
    bytes: () => bytes,
    stop: () => {
      // Only our own patch is undone: the prototype's method shows through again.
      if ((client as unknown as { sendCommand: unknown }).sendCommand === patched)
        delete (client as unknown as { sendCommand?: unknown }).sendCommand;
    },
  };
}

/**
 * Runs `act` with the connection's wire recorded, between two CLIENT INFO calls (not recorded), and
 * answers the commands with the server's own counts of them.
 */
export async function wireDuring(
  client: Valkey,
  act: () => Promise<void>,
): Promise<{ wire: WireCommand[]; proof: WireProof }> {
  const before = await clientCounters(client);
  const recording = recordWire(client);
  try {
    await act();
  } finally {
    recording.stop();
  }
  const after = await clientCounters(client);
  return {
    wire: recording.commands,
    proof: {
      // The first CLIENT INFO is counted by the second; the second's own bytes are in its reading.
      reached: after.commands - before.commands - 1,
      listed: recording.commands.length,
      bytesReceived: after.bytesIn - before.bytesIn - CLIENT_INFO_BYTES,
      bytesListed: recording.bytes(),
    },
  };
}
