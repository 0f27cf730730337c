// The access log: one JSON line on standard output for every request the public port answers — time,
// method, path, status, duration, bytes sent, the request's id, and for a run its experiment and
// outcome; the reader's address only as the operator chose (LOG_ADDRESSES). The same moment counts
// the request in the metrics (metrics.ts), so the log and the counters cannot disagree.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isExperimentName } from '../contract/experiment-table.ts';
import { jsonText } from './json-line.ts';
import { rateLimited, requests, runs, runSeconds } from './metrics.ts';
import { newRequestId, withRequest, type RequestContext } from './request-context.ts';

/** How much of the reader's address the log keeps: none, all of it, or its network (/24, /48). */
export type AddressLogging = 'none' | 'full' | 'network';

/** The answer's error code, as its writer knew it (server/front/write-answer.ts). */
const outcomes = new WeakMap<ServerResponse, string>();

/** Notes the error code a JSON answer carried, for its log line and its run's outcome. */
export function noteOutcome(response: ServerResponse, code: string): void {
  outcomes.set(response, code);
}

/** The experiment a request runs, or undefined: a POST to a known experiment, or a server island. */
function experimentOf(method: string, path: string): string | undefined {
  if (path.startsWith('/_server-islands/')) return 'island';
  const name = /^\/api\/experiments\/([^/]+)\/?$/.exec(path)?.[1];
  return method === 'POST' && name !== undefined && isExperimentName(name) ? name : undefined;
}

/**
 * The lines of this turn of the event loop, written together once it ends (setImmediate): standard
 * output to a pipe or journald's socket is written synchronously on Linux, a system call per write,
 * and answers finish in bursts. What is left at exit is written then.
 */
let unwritten = '';

function writeLater(line: string): void {
  if (unwritten === '') setImmediate(writeNow);
  unwritten += line;
}

function writeNow(): void {
  if (unwritten === '') return;
  const lines = unwritten;
  unwritten = '';
  process.stdout.write(lines);
}
process.on('exit', writeNow);

/** Each label set's counter, found once (prom-client hashes the labels on every inc otherwise). */
const requestsBy = new Map<number, { inc(): void }>();
const runsBy = new Map<string, { inc(): void }>();
const secondsBy = new Map<string, { observe(seconds: number): void }>();

function countRequest(status: number): void {
  let counter = requestsBy.get(status);
  if (!counter) requestsBy.set(status, (counter = requests.labels(String(status))));
  counter.inc();
}

function countRun(experiment: string, outcome: string, seconds: number): void {
  const key = `${experiment} ${outcome}`;
  let counter = runsBy.get(key);
  if (!counter) runsBy.set(key, (counter = runs.labels(experiment, outcome)));
  counter.inc();
  let histogram = secondsBy.get(experiment);
  if (!histogram) secondsBy.set(experiment, (histogram = runSeconds.labels(experiment)));
  histogram.observe(seconds);
}

export function networkOf(address: string): string {
  if (address.includes(':')) return address.split(':').slice(0, 3).join(':') + '::/48';
  return address.split('.').slice(0, 3).join('.') + '.0/24';
}

/**
 * Handles one request inside its context (request-context.ts): `work` runs with the request's id known
 * to every failure it logs, and when the answer is done (or the connection dropped) the line is written.
 */
export function observed<T>(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  from: string,
  addresses: AddressLogging,
  work: () => T,
): T {
  const started = performance.now();
  const socket = request.socket;
  const sentBefore = socket.bytesWritten;
  const method = request.method ?? 'GET';
  const context: RequestContext = { id: newRequestId(), experiment: experimentOf(method, path) };
  response.once('close', () => {
    const seconds = (performance.now() - started) / 1000;
    const status = response.statusCode;
    const code = outcomes.get(response);
    const aborted = !response.writableFinished;
    countRequest(status);
    if (code === 'RATE_LIMITED') rateLimited.inc();
    if (context.experiment) {
      const outcome = aborted ? 'aborted' : (code ?? (status < 400 ? 'ok' : String(status)));
      countRun(context.experiment, outcome, seconds);
    }
    writeLater(
      jsonText({
        method,
        path: path.length > 512 ? `${path.slice(0, 512)}…` : path,
        status,
        ms: Math.round(seconds * 10_000) / 10,
        bytes: socket.bytesWritten - sentBefore,
        id: context.id,
        experiment: context.experiment,
        code,
        aborted: aborted || undefined,
        address: addresses === 'full' ? from : addresses === 'network' ? networkOf(from) : undefined,
      }),
    );
  });
  return withRequest(context, work);
}
