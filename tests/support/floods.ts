// The two floods of issue 35's hostile round, each run in a process of its own (so the reader measured
// beside it shares no event loop with it), from loopback addresses of its own, for a bounded time after
// which it stops by itself:
// - `slow-body`: `addresses` × `perAddress` connections, each sending whole headers of
//   `POST /api/experiments/keys` with `Content-Length: 4000`, then one body byte every `byteEveryMs`,
//   opening again `reopenMs` after any close;
// - `catalogue`: `addresses` × `perAddress` connections, each pipelining `pipeline` requests of
//   `GET /api/experiments` with `Accept-Encoding: br` and sending the next batch once they are answered.
// Started by `startFlood` (which spawns this file); prints its counts as one JSON line when it ends.

import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface FloodOptions {
  kind: 'slow-body' | 'catalogue';
  /** The site's `http://host:port`. */
  url: string;
  /** The source addresses, e.g. 127.21.0.1 … (Linux routes all of 127/8 to loopback). */
  addresses: string[];
  perAddress: number;
  /** The flood stops by itself after this. */
  seconds: number;
  byteEveryMs?: number;
  reopenMs?: number;
  pipeline?: number;
}

export interface FloodCounts {
  /** Connections opened. */
  opened: number;
  /** Connections the site closed (or reset). */
  closed: number;
  /** Answers read (catalogue), by status. */
  answers: Record<string, number>;
}

/** `count` loopback addresses from `prefix` (e.g. '127.21'), skipping .0 and .255. */
export function addressesIn(prefix: string, count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    return `${prefix}.${Math.floor(n / 254)}.${(n % 254) + 1}`;
  });
}

/** Starts a flood in a process of its own; `stop` ends it early and answers its counts. */
export function startFlood(options: FloodOptions): { stop(): Promise<FloodCounts> } {
  const node = process.execPath;
  const child = spawn(node, [fileURLToPath(import.meta.url), JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  const ended = new Promise<FloodCounts>((resolve) =>
    child.once('exit', () => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as FloodCounts);
      } catch {
        resolve({ opened: 0, closed: 0, answers: {} });
      }
    }),
  );
  return {
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return ended;
    },
  };
}

function runFlood(options: FloodOptions): void {
  const { hostname, port } = new URL(options.url);
  const counts: FloodCounts = { opened: 0, closed: 0, answers: {} };
  const sockets = new Set<Socket>();
  let running = true;
  const host = hostname === 'localhost' ? '127.0.0.1' : hostname;

  const slowBody = (localAddress: string) => {
    if (!running) return;
    const socket = connect({ host, port: Number(port), localAddress });
    counts.opened += 1;
    sockets.add(socket);
    let drip: NodeJS.Timeout | undefined;
    socket.on('error', () => {});
    socket.once('connect', () => {
      socket.write(
        'POST /api/experiments/keys HTTP/1.1\r\nHost: l\r\ncontent-type: application/json\r\ncontent-length: 4000\r\n\r\n',
      );
      drip = setInterval(() => socket.write(' '), options.byteEveryMs ?? 4000);
    });
    socket.once('close', () => {
      clearInterval(drip);
      sockets.delete(socket);
      counts.closed += 1;
      if (running) setTimeout(() => slowBody(localAddress), options.reopenMs ?? 1000);
    });
  };

  const catalogue = (localAddress: string) => {
    if (!running) return;
    const socket = connect({ host, port: Number(port), localAddress });
    counts.opened += 1;
    sockets.add(socket);
    const batch = options.pipeline ?? 50;
    const one = 'GET /api/experiments HTTP/1.1\r\nHost: l\r\naccept-encoding: br\r\n\r\n';
    let buffer = Buffer.alloc(0);
    let owed = 0;
    const send = () => {
      owed += batch;
      socket.write(one.repeat(batch));
    };
    socket.on('error', () => {});
    socket.once('connect', send);
    // Each answer: its headers, then content-length bytes; the next batch once this one is answered.
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) break;
        const head = buffer.subarray(0, end).toString('latin1');
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) break;
        const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? '?';
        counts.answers[status] = (counts.answers[status] ?? 0) + 1;
        buffer = buffer.subarray(end + 4 + length);
        owed -= 1;
      }
      if (owed === 0 && running) send();
    });
    socket.once('close', () => {
      sockets.delete(socket);
      counts.closed += 1;
      if (running) setTimeout(() => catalogue(localAddress), options.reopenMs ?? 1000);
    });
  };

  const open = options.kind === 'slow-body' ? slowBody : catalogue;
  for (const address of options.addresses) for (let i = 0; i < options.perAddress; i += 1) open(address);

  const end = () => {
    if (!running) return;
    running = false;
    for (const socket of sockets) socket.destroy();
    process.stdout.write(JSON.stringify(counts) + '\n', () => process.exit(0));
  };
  setTimeout(end, options.seconds * 1000);
  process.once('SIGTERM', end);
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  runFlood(JSON.parse(process.argv[2]!) as FloodOptions);
