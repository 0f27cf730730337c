// The site's metrics, in the Prometheus text format, from prom-client: runs by experiment and outcome
// and how long they took, the reshard line (how many wait, how long), each Valkey server's state,
// connections shed and readers rate-limited, requests by status, and Node's own process metrics. Each
// process counts its own in prom-client's global registry; with WORKERS=n the primary asks every worker
// for theirs over the cluster's IPC and sums them (prom-client's AggregatorRegistry), so one scrape
// covers the whole host. Served on a port of its own (metrics-server.ts), never on the public one.

import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, register } from 'prom-client';

collectDefaultMetrics();
/** Built here so that a worker answers the primary's requests for its metrics from its first moment. */
export const aggregator = new AggregatorRegistry();

/** What runs and how they ended: `outcome` is `ok` or the error code of the answer (`BUSY`, `TIMEOUT`…). */
export const runs = new Counter({
  name: 'emq_runs_total',
  help: 'Runs answered, by experiment and outcome (ok, or the answer’s error code).',
  labelNames: ['experiment', 'outcome'] as const,
});

export const runSeconds = new Histogram({
  name: 'emq_run_duration_seconds',
  help: 'Time from a run’s request to its answer, by experiment.',
  labelNames: ['experiment'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 16, 30],
});

export const requests = new Counter({
  name: 'emq_http_requests_total',
  help: 'Requests answered on the public port, by status code.',
  labelNames: ['status'] as const,
});

/** A line of turns kept in Valkey (server/cluster/run-lock.ts): the reshards'. */
export const lineWaiting = new Gauge({
  name: 'emq_line_waiting',
  help: 'Runs of this host waiting in a line of turns for their turn (the reshard’s: `migration`).',
  labelNames: ['line'] as const,
});

export const lineAhead = new Histogram({
  name: 'emq_line_ahead',
  help: 'Tickets ahead of a run as it joined a line of turns: the line’s length as each run found it.',
  labelNames: ['line'] as const,
  buckets: [0, 1, 2, 4, 8, 16, 32],
});

export const lineWaitSeconds = new Histogram({
  name: 'emq_line_wait_seconds',
  help: 'Time a run waited in a line of turns before its turn came (or it gave up).',
  labelNames: ['line'] as const,
  buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/** What the front's connection caps have shed so far, one reader per front of this process. */
const shedSources: Array<() => number> = [];

/** Counts what `shed` says the front's connection caps shed (server/front/connection-cap.ts). */
export function observeShed(shed: () => number): void {
  shedSources.push(shed);
}

new Counter({
  name: 'emq_connections_shed_total',
  help: 'Connections the front’s caps closed to make room for newer ones (server/front/connection-cap.ts).',
  collect() {
    this.reset();
    this.inc(shedSources.reduce((sum, shed) => sum + shed(), 0));
  },
});

export const rateLimited = new Counter({
  name: 'emq_rate_limited_total',
  help: 'Requests refused 429 by the reader’s rate limit.',
});

export const draining = new Gauge({
  name: 'emq_draining',
  help: '1 while a process is draining after SIGTERM (summed over the host’s processes).',
});

/** A Valkey server the explorer uses, and whether it answers. */
export interface ServerState {
  server: string;
  role: string;
  up: boolean;
}

let readServers: (() => Promise<ServerState[]>) | undefined;

/** Where `emq_server_up` reads each server's state: the process's runtime, once it has one. */
export function observeServers(read: () => Promise<ServerState[]>): void {
  readServers = read;
}

new Gauge({
  name: 'emq_server_up',
  help: 'Whether each Valkey server answers a PING within a second (1) or not (0); with several processes, the lowest.',
  labelNames: ['server', 'role'] as const,
  aggregator: 'min',
  async collect() {
    this.reset();
    for (const { server, role, up } of (await readServers?.().catch(() => [])) ?? [])
      this.set({ server, role }, up ? 1 : 0);
  },
});

/** This process's metrics as text (WORKERS=1), or every worker's summed (the primary of WORKERS=n). */
export async function metricsText(workers: boolean): Promise<string> {
  return workers ? aggregator.clusterMetrics() : register.metrics();
}

export const METRICS_CONTENT_TYPE = register.contentType;
