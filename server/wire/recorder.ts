// The wire of a run: every command a connection sent, in order, with the reply the server gave,
// recorded where iovalkey hands each command to its socket (pipelines and handshakes included). The
// proof beside it is read from the server (CLIENT INFO): the bytes it received on that connection must
// equal the RESP bytes of the commands recorded. Its command count (tot-cmds) equals their number too,
// but for the calls a script made inside the server (counted) and commands refused before they ran
// (CROSSSLOT, MOVED, ASK: not counted).

import type { Valkey } from 'iovalkey';
import { reprCommand } from '../contract/wire/repr.ts';
import { DUMP_SCRIPT, dumpCalls } from '../inspect/keyspace-dump.ts';
import type { WireCommand, WireProof, WireReply } from '../contract/wire/types.ts';

export type { WireCommand, WireProof, WireReply } from '../contract/wire/types.ts';

interface SentCommand {
  name: string;
  args: unknown[];
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** A word as iovalkey sends it: bytes as they are, anything else as its string (a number's digits). */
type Word = string | Uint8Array;

function asWord(arg: unknown): Word {
  return arg instanceof Uint8Array ? arg : String(arg);
}

const decoder = new TextDecoder();

function textOf(word: Word): string {
  return typeof word === 'string' ? word : decoder.decode(word);
}

/** The length of one word as RESP puts it: $<len>\r\n<bytes>\r\n. */
function wordLength(word: unknown): number {
  const bytes = word instanceof Uint8Array ? word.length : Buffer.byteLength(String(word));
  return String(bytes).length + bytes + 5;
}

/**
 * The length of a command as RESP puts it on the wire: *<n>, then $<len> and the bytes per word. A word
 * is bytes, or what iovalkey sends for it (a string's UTF-8, a number's digits); nothing is copied.
 */
function respLength(words: readonly unknown[]): number {
  let length = String(words.length).length + 3; // *<n>\r\n
  for (const word of words) length += wordLength(word);
  return length;
}

/** respLength of `name` followed by `args`, as a command goes out, without making the array. */
function commandLength(name: string, args: readonly unknown[]): number {
  let length = String(args.length + 1).length + 3 + wordLength(name);
  for (const arg of args) length += wordLength(arg);
  return length;
}

/** CLIENT INFO's own bytes, which the second reading counts. */
export const CLIENT_INFO_BYTES = respLength(['CLIENT', 'INFO']);

export interface Counters {
  commands: number;
  bytesIn: number;
}

/**
 * A plain read sent in the same write as a closing CLIENT INFO, just before it: its reply comes back
 * too (its error as the reply, the reading kept). The in-server dump (`dumpCommand`) is one as well:
 * the commands it ran inside the server are in the ledger by the time the CLIENT INFO answers.
 */
export type ReadAfter = [name: string, ...args: string[]];

/**
 * Reads the connection's counters from the server (CLIENT INFO) and keeps the reading; with `after`,
 * that read goes out in the same write, just ahead of the CLIENT INFO, and its reply is answered too.
 * (Ahead, not behind: the server counts a read's bytes when they arrive, so a command arriving with
 * the CLIENT INFO would be in its byte count even behind it.) The counters answered are as if the read
 * had not been sent; the next reading finds it in the ledger.
 */
export async function clientCounters(client: Valkey): Promise<Counters>;
export async function clientCounters(
  client: Valkey,
  after: ReadAfter,
): Promise<{ counters: Counters; read: unknown | Error }>;
export async function clientCounters(client: Valkey, after?: ReadAfter) {
  const ledger = tap(client).ledger;
  // What the read counts as on the server: one command, or for the in-server dump one and the calls
  // it made, which the tap adds to the ledger when its reply comes (the CLIENT INFO's is after it).
  const ledgerBefore = ledger.commands;
  let info: unknown;
  let read: unknown;
  if (after) {
    const [readAnswer, infoAnswer] = await inOneWrite(client, () => [
      client.call(...after).catch((error: Error) => error),
      client.call('CLIENT', 'INFO'),
    ]);
    [info, read] = [infoAnswer, readAnswer];
  } else {
    info = await client.call('CLIENT', 'INFO');
  }
  const commands = / tot-cmds=(\d+)/.exec(String(info));
  const bytesIn = / tot-net-in=(\d+)/.exec(String(info));
  if (!commands || !bytesIn) throw new Error('CLIENT INFO did not report tot-cmds and tot-net-in');
  const afterBytes = after ? respLength(after) : 0;
  const afterCommands = after ? ledger.commands - ledgerBefore - 1 : 0;
  const counters = {
    commands: Number(commands[1]) - afterCommands,
    bytesIn: Number(bytesIn[1]) - afterBytes,
  };
  const socket = client.stream;
  readings.set(client, {
    socket,
    written: socket.bytesWritten - afterBytes,
    ledger: { ...ledger, commands: ledger.commands - afterCommands, bytes: ledger.bytes - afterBytes },
    counters,
  });
  return after ? { counters, read } : counters;
}

/**
 * The commands `send` sends go out in one write (the socket corked while they are handed over): a
 * pipeline's one round trip, without iovalkey's Pipeline, whose making and bookkeeping cost more than
 * the two commands of a closing reading.
 */
function inOneWrite<T extends unknown[]>(client: Valkey, send: () => [...{ [K in keyof T]: Promise<T[K]> }]) {
  const socket = client.stream;
  socket.cork();
  try {
    return Promise.all(send());
  } finally {
    socket.uncork();
  }
}

/**
 * The last CLIENT INFO reading of each connection, with its socket, the bytes that socket had written
 * and the connection's ledger when the reading came back.
 */
const readings = new WeakMap<
  Valkey,
  { socket: { bytesWritten: number }; written: number; ledger: Ledger; counters: Counters }
>();

/**
 * The connection's counters as a CLIENT INFO sent now would read them: the last reading plus the
 * commands the ledger saw written since, when those are all the socket wrote (same socket, same byte
 * count) and none ran a script or a module command (whose inner calls the server counts too); else a
 * fresh reading. A run starts from it instead of asking again: one round trip less per connection, and
 * the closing reading still checks it — a wrong start would show as bytes that do not add up.
 */
export async function countersNow(client: Valkey): Promise<Counters> {
  const known = readings.get(client);
  const now = tap(client).ledger;
  const socket = client.stream;
  if (
    known &&
    known.socket === socket &&
    now.inner === known.ledger.inner &&
    socket.bytesWritten - known.written === now.bytes - known.ledger.bytes
  ) {
    return {
      commands: known.counters.commands + now.commands - known.ledger.commands,
      bytesIn: known.counters.bytesIn + now.bytes - known.ledger.bytes,
    };
  }
  return clientCounters(client);
}

/** Replies over this many characters are cut (INFO's ready-check reply is 4 KB of server detail). */
const REPLY_CHARS = 240;

function settled(value: unknown): WireReply {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'string' || value instanceof Uint8Array) {
    const text = textOf(value);
    return text.length > REPLY_CHARS ? `${text.slice(0, REPLY_CHARS)}… (${text.length} characters)` : text;
  }
  if (Array.isArray(value)) return value.map(settled);
  return String(value);
}

/** A password never leaves the server in a wire: AUTH's and HELLO … AUTH's are masked (bytes still counted). */
function redacted(name: string, argv: Word[]): Word[] {
  // Only AUTH and HELLO carry one: every other name is passed on its length alone.
  if (name.length !== 4 && name.length !== 5) return argv;
  const masked = '(password)';
  const lower = name.toLowerCase();
  if (lower === 'auth') return argv.map((arg, i) => (i === argv.length - 1 && i > 0 ? masked : arg));
  if (lower === 'hello') {
    const at = argv.findIndex((arg) => textOf(arg).toUpperCase() === 'AUTH');
    if (at > 0) return argv.map((arg, i) => (i === at + 2 ? masked : arg));
  }
  return argv;
}

/** What a connection has written, as counted at its one tap. */
interface Ledger {
  commands: number;
  bytes: number;
  /** Commands that run others inside the server (scripts, module commands). */
  inner: number;
}

interface Recording {
  commands: WireCommand[];
  bytes: number;
  node?: string;
}

interface Tap {
  ledger: Ledger;
  recordings: Set<Recording>;
}

const taps = new WeakMap<Valkey, Tap>();

/** Commands the server counts with the calls they make inside it. */
const RUNS_OTHERS = /^(eval|evalsha|eval_ro|evalsha_ro|fcall|fcall_ro|emq\.)/i;

/**
 * The connection's one tap, where iovalkey hands each command to its socket (pipelines and handshakes
 * included): it keeps the ledger of everything written and feeds the recordings running.
 */
function tap(client: Valkey): Tap {
  let found = taps.get(client);
  if (found) return found;
  const state: Tap = { ledger: { commands: 0, bytes: 0, inner: 0 }, recordings: new Set() };
  taps.set(client, state);
  const original = client.sendCommand;
  (client as unknown as { sendCommand: unknown }).sendCommand = function (
    this: Valkey,
    command: SentCommand,
    ...rest: unknown[]
  ) {
    const sent = (original as (...args: unknown[]) => unknown).call(this, command, ...rest);
    // Only a command written to the socket counts: one queued while the connection is not ready
    // comes back through here when the queue is flushed, and a rejected one never left.
    const queue = (this as unknown as { commandQueue: { peekBack(): { command: unknown } | undefined } })
      .commandQueue;
    if (queue.peekBack()?.command !== command) return sent;
    const bytes = commandLength(command.name, command.args);
    state.ledger.commands += 1;
    state.ledger.bytes += bytes;
    if (RUNS_OTHERS.test(command.name)) {
      state.ledger.inner += 1;
      if (String(command.args[0]) === DUMP_SCRIPT.sha) countDumpCalls(command, state.ledger);
    }
    if (state.recordings.size > 0) record(command, bytes, state.recordings);
    return sent;
  };
  return state;
}

/**
 * The in-server dump says how many commands it ran: once its reply is in, the ledger holds them, and
 * the dump no longer stands for calls unknown (a later run starts from the ledger, no CLIENT INFO).
 * A failed one (NOSCRIPT) stays unknown.
 */
function countDumpCalls(command: SentCommand, ledger: Ledger) {
  const { resolve } = command;
  command.resolve = (value) => {
    command.resolve = resolve;
    const calls = dumpCalls(value);
    if (calls !== null) {
      ledger.commands += calls;
      ledger.inner -= 1;
    }
    resolve.call(command, value);
  };
}

function record(command: SentCommand, bytes: number, recordings: Set<Recording>) {
  const argv: Word[] = [command.name];
  for (const arg of command.args) argv.push(asWord(arg));
  const line = reprCommand(redacted(command.name, argv));
  const entries: WireCommand[] = [];
  for (const recording of recordings) {
    const entry: WireCommand = recording.node
      ? { line, reply: null, node: recording.node }
      : { line, reply: null };
    recording.bytes += bytes;
    recording.commands.push(entry);
    entries.push(entry);
  }
  // This send's own answer: a cluster client sends one command again after MOVED or ASK, so the
  // answer is caught as it arrives (then the handlers before ours run) rather than from its promise.
  const { resolve, reject } = command;
  command.resolve = (value) => {
    Object.assign(command, { resolve, reject });
    for (const entry of entries) entry.reply = settled(value);
    resolve.call(command, value);
  };
  command.reject = (error) => {
    Object.assign(command, { resolve, reject });
    for (const entry of entries) entry.reply = { error: error.message };
    reject.call(command, error);
  };
}

/** Records every command `client` sends until stop(); the replies fill in as they arrive. */
export function recordWire(
  client: Valkey,
  options: { sink?: WireCommand[]; node?: string } = {},
): { commands: WireCommand[]; bytes(): number; stop(): void } {
  const recording: Recording = { commands: options.sink ?? [], bytes: 0, node: options.node };
  const { recordings } = tap(client);
  recordings.add(recording);
  return {
    commands: recording.commands,
    bytes: () => recording.bytes,
    stop: () => void recordings.delete(recording),
  };
}

/**
 * Runs `act` with the connection's wire recorded, between two CLIENT INFO readings (not recorded; the
 * first may be the last run's closing one, when nothing was sent since), and answers the commands
 * with the server's own counts of them; `readAfter` is read in the same write as the closing reading.
 */
export async function wireDuring(
  client: Valkey,
  act: () => Promise<void>,
  readAfter?: ReadAfter,
): Promise<{ wire: WireCommand[]; proof: WireProof; read?: unknown }> {
  const before = await countersNow(client);
  const recording = recordWire(client);
  try {
    await act();
  } finally {
    recording.stop();
  }
  const closing = readAfter
    ? await clientCounters(client, readAfter)
    : { counters: await clientCounters(client) };
  const after = closing.counters;
  return {
    wire: recording.commands,
    proof: {
      // The first CLIENT INFO is counted by the second; the second's own bytes are in its reading.
      reached: after.commands - before.commands - 1,
      listed: recording.commands.length,
      bytesReceived: after.bytesIn - before.bytesIn - CLIENT_INFO_BYTES,
      bytesListed: recording.bytes(),
    },
    ...('read' in closing ? { read: closing.read } : {}),
  };
}
