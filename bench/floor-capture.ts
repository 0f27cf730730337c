// What a real run sends to Valkey, write by write, for the floor bench (ratio-floor.ts): each experiment
// is run in this process through the API, one run at a time, on a sandbox the caller started, and every
// socket write its Valkey connections made is kept with the commands in it and the connection it went
// out on (node, user, database), beside the JSON answer the reader was given. The floor replays these
// writes, so it sends what our runs send, on as many round trips, and answers as many bytes.

import { Valkey } from 'iovalkey';
import { WORKLOADS } from './explorer-workloads.ts';
import { onSocketWrite } from './socket-writes.ts';

/** One socket write of a run: the connection it went out on and the commands in it. */
export interface TracedWrite {
  /** `<port>|<user>|<database>`: which of the floor's connections sends it again. */
  connection: string;
  commands: string[][];
  /**
   * How many replies of the run had come back when it was written: writes with the same count went out
   * together (before any of their replies), and the floor sends them together too.
   */
  after: number;
}

/** One run, as the reader's input named it: its writes in order, and the answer's JSON text. */
export interface Trace {
  writes: TracedWrite[];
  /** How many of its commands the server refused (MOVED, CROSSSLOT, a refusal the reader is shown). */
  refused: number;
  answer: string;
}

/** Per experiment, per request body (as the bench sends it): the run's trace. */
export type Traces = Record<string, Record<string, Trace>>;

interface Sent {
  name: string;
  args: unknown[];
  resolve(value: unknown): void;
  reject(error: Error): void;
}

let capturing: TracedWrite[] | null = null;
/** Replies that came back to commands sent while capturing, and how many of them were errors. */
let replies = 0;
let refused = 0;
/** Commands handed to a socket and not yet written by it (iovalkey writes at once unless corked). */
const unwritten = new WeakMap<object, { connection: string; commands: string[][] }>();

function word(arg: unknown): string {
  return arg instanceof Uint8Array ? Buffer.from(arg).toString('latin1') : String(arg);
}

/**
 * Taps every Valkey connection this process makes from now on (call it before the runtime starts):
 * iovalkey's sendCommand names the command, the socket's _write and _writev end a write.
 */
function installTaps(): void {
  const proto = Valkey.prototype as unknown as { sendCommand(command: Sent, ...rest: unknown[]): unknown };
  const send = proto.sendCommand;
  proto.sendCommand = function (this: Valkey, command: Sent, ...rest: unknown[]) {
    const stream = this.stream as object | undefined;
    if (capturing && stream) {
      const { port } = this.options;
      const user = this.options.username ?? 'default';
      const db = (this as unknown as { condition?: { select?: number } }).condition?.select ?? 0;
      const pending = unwritten.get(stream) ?? { connection: `${port}|${user}|${db}`, commands: [] };
      pending.commands.push([command.name, ...command.args.map(word)]);
      unwritten.set(stream, pending);
      const { resolve, reject } = command;
      command.resolve = (value) => (replies++, resolve.call(command, value));
      command.reject = (error) => (replies++, refused++, reject.call(command, error));
    }
    return send.call(this, command, ...rest);
  };
  onSocketWrite((socket) => {
    const pending = unwritten.get(socket);
    if (pending) {
      unwritten.delete(socket);
      capturing?.push({ ...pending, after: replies });
    }
  });
}

/** The distinct request bodies of the first `requests` runs the load bench sends `name`. */
export function bodiesOf(name: string, requests: number): string[] {
  const bodies = new Set<string>();
  for (let i = 0; i < requests; i += 1) bodies.add(JSON.stringify(WORKLOADS[name]!(i)));
  return [...bodies];
}

/**
 * Runs each experiment of `names` once per distinct body (after a few warm runs, so scripts are loaded
 * and connections open, as in the load bench's steady state) on the sandbox at VALKEY_URL and
 * VALKEY_CLUSTER_URL, and answers their traces. The runtime is closed after.
 */
export async function captureTraces(names: string[], requests: number): Promise<Traces> {
  installTaps();
  const { answerApi } = await import('../server/api/api.ts');
  const { explorerRuntime } = await import('../server/explorer/runtime.ts');
  const run = async (name: string, body: string) => {
    const answer = await answerApi(`/api/experiments/${name}`, {
      method: 'POST',
      contentType: 'application/json',
      readBody: async () => Buffer.from(body),
    });
    if (answer.status !== 200) throw new Error(`${name}: ${JSON.stringify(answer.body)}`);
    return JSON.stringify(answer.body);
  };
  const traces: Traces = {};
  try {
    for (const name of names) {
      const bodies = bodiesOf(name, requests);
      for (let i = 0; i < 5; i += 1) for (const body of bodies.slice(0, 5)) await run(name, body);
      traces[name] = {};
      for (const body of bodies) {
        const writes: TracedWrite[] = [];
        capturing = writes;
        replies = 0;
        refused = 0;
        const answer = await run(name, body);
        // The give-back and any write after the answer was made are the run's too.
        await new Promise((resolve) => setTimeout(resolve, 20));
        capturing = null;
        traces[name][body] = { writes, refused, answer };
      }
    }
  } finally {
    capturing = null;
    await (await explorerRuntime()).close();
  }
  return traces;
}
