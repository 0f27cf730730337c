// A graceful stop on SIGTERM (and SIGINT): readiness turns 503 at once (server/front/health.ts reads
// `isDraining`), the port stops taking connections, every request in flight — a 20,000-job reshard
// included — runs to its answer within its deadline, then `stop` (the sandbox's servers, when this
// process started them) and the process exits. A second signal, or the drain's own deadline, ends it at
// once. Connections already open and idle are not cut at the first signal: a request a proxy sends on one
// just then is still served (its answer closes the connection), instead of failing with a reset that the
// proxy would not retry for a run.

import { Server as NetServer, type Socket } from 'node:net';
import type { Server, ServerResponse } from 'node:http';
import { draining as drainingGauge } from './observe/metrics.ts';

let draining = false;
let drainStarted = 0;
/**
 * A signal this soon after the first is the same stop told twice (Ctrl-C reaches a worker from the
 * terminal and from its primary both), not the operator's second.
 */
const SAME_STOP_MS = 200;

/** Whether a signal now is the operator's second: ends the drain at once. */
function secondSignal(): boolean {
  if (!draining) return false;
  return performance.now() - drainStarted >= SAME_STOP_MS;
}

/** Whether this process has begun to drain: readiness answers 503 from that moment. */
export function isDraining(): boolean {
  return draining;
}

export interface DrainOptions {
  /** The public server, whose requests are counted and waited for. */
  server: Server;
  /** How long the drain may take before the process ends regardless. */
  deadlineMs: number;
  /** What to stop once no request is left (the runtime, the servers it started). */
  stop(): Promise<void>;
  /** One line to the log per step; console.log by default. */
  say?(line: string): void;
}

/** Counts `server`'s requests in flight; while draining, each answer closes its connection. */
function trackRequests(server: Server) {
  const open = new Set<ServerResponse>();
  let idle: (() => void) | undefined;
  const over = (response: ServerResponse) => {
    if (open.delete(response) && open.size === 0) idle?.();
  };
  /**
   * The responses still open on each connection. A pipelined request queued behind an answer that
   * closed its connection (a 429's `connection: close`) is never answered, and its response never says
   * 'close': the connection's close ends it, or it would be counted, and kept, for ever.
   */
  const byConnection = new WeakMap<Socket, Set<ServerResponse>>();
  const onConnection = (socket: Socket) => {
    let responses = byConnection.get(socket);
    if (!responses) {
      const mine = (responses = new Set());
      byConnection.set(socket, mine);
      socket.once('close', () => mine.forEach(over));
    }
    return responses;
  };
  // Ahead of the front's own handler, so that an answer it writes at once already closes its connection.
  server.prependListener('request', (request, response) => {
    open.add(response);
    if (draining) response.setHeader('connection', 'close');
    const mine = onConnection(request.socket).add(response);
    response.once('close', () => {
      mine.delete(response);
      over(response);
    });
  });
  return {
    count: () => open.size,
    /** Resolves when no request is in flight; every one not yet answered is told to close. */
    settled: () =>
      new Promise<void>((resolve) => {
        for (const response of open) if (!response.headersSent) response.setHeader('connection', 'close');
        if (open.size === 0) return resolve();
        idle = resolve;
      }),
  };
}

/** Drains `server` on SIGTERM or SIGINT, as the file's head says. */
export function drainOnSignal(options: DrainOptions): void {
  const say = options.say ?? ((line: string) => console.log(line));
  const requests = trackRequests(options.server);
  const begin = (signal: NodeJS.Signals) => {
    if (secondSignal()) {
      say(`drain: ${signal} again: ending now with ${requests.count()} requests in flight`);
      process.exit(1);
    }
    if (draining) return;
    draining = true;
    drainStarted = performance.now();
    drainingGauge.set(1);
    const started = Date.now();
    say(`drain: ${signal}: not ready; taking no new connection; ${requests.count()} requests in flight`);
    // Stops listening without closing the idle kept-alive connections (http.Server#close would).
    NetServer.prototype.close.call(options.server);
    const deadline = setTimeout(() => {
      say(
        `drain: deadline of ${options.deadlineMs} ms passed with ${requests.count()} requests in flight; ending now`,
      );
      process.exit(1);
    }, options.deadlineMs);
    deadline.unref();
    void requests
      .settled()
      .then(async () => {
        say(`drain: every request answered (${Date.now() - started} ms); stopping`);
        options.server.closeAllConnections();
        await options.stop();
      })
      .then(
        () => process.exit(0),
        (error: Error) => {
          say(`drain: stopping failed: ${error.message}`);
          process.exit(1);
        },
      );
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => begin(signal));
}

export interface WorkersDrainOptions {
  /** The workers now (Node's `cluster.workers`). */
  workers(): Array<{ process: { kill(signal?: NodeJS.Signals): boolean }; isDead(): boolean }>;
  /** Called at the first signal, before the workers are told: no worker is started again after it. */
  stopping(): void;
  deadlineMs: number;
  /** What to stop once every worker has ended (the sandbox this primary started). */
  stop(): Promise<void>;
  say?(line: string): void;
}

/**
 * The primary of WORKERS=n: on SIGTERM or SIGINT each worker drains itself (drainOnSignal, told by the
 * same signal), the primary waits for all to end, then stops the sandbox and exits. A second signal, or
 * the deadline (a little past the workers' own), kills what is left and ends it at once.
 */
export function drainWorkersOnSignal(options: WorkersDrainOptions): void {
  const say = options.say ?? ((line: string) => console.log(line));
  const left = () => options.workers().filter((worker) => !worker.isDead());
  const end = (code: number) => {
    for (const worker of left()) worker.process.kill('SIGKILL');
    process.exit(code); // 'exit' stops this process's own servers (server/sandbox/valkey-process.ts)
  };
  const begin = (signal: NodeJS.Signals) => {
    if (secondSignal()) {
      say(`drain: ${signal} again: ending now with ${left().length} workers left`);
      return end(1);
    }
    if (draining) return;
    draining = true;
    drainStarted = performance.now();
    options.stopping();
    const started = Date.now();
    say(`drain: ${signal}: telling ${left().length} workers to drain`);
    for (const worker of left()) worker.process.kill('SIGTERM');
    const deadline = setTimeout(() => {
      say(
        `drain: deadline of ${options.deadlineMs} ms passed with ${left().length} workers left; ending now`,
      );
      end(1);
    }, options.deadlineMs + 2000);
    deadline.unref();
    const poll = setInterval(() => {
      if (left().length > 0) return;
      clearInterval(poll);
      say(`drain: every worker ended (${Date.now() - started} ms); stopping`);
      options.stop().then(
        () => process.exit(0),
        (error: Error) => {
          say(`drain: stopping failed: ${error.message}`);
          process.exit(1);
        },
      );
    }, 50);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => begin(signal));
}
