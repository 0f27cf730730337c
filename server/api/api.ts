// The JSON API under /api/: its routes, and the experiments' runs, as plain answers (status, body,
// headers) that any HTTP server can write, so it is tested without one; the front writes them
// (server/front/serve-api.ts), ahead of Astro, which never sees an /api/ request. Every refusal is problem
// details (answer.ts) with a 4xx status; a sandbox outage is a 503 that says so; no stack trace ever
// leaves the server.

import { quoted } from '../contract/catalogue/catalogue-text.ts';
import { commandArities, type CommandArity } from '../contract/catalogue/commands.ts';
import { ERROR_CODES, type ErrorCode } from '../contract/catalogue/error-codes.ts';
import { OPENAPI_PATH } from '../contract/catalogue/problem.ts';
import { openapiDocument } from './openapi.ts';
import { json, refusal, refusalSaying, routeMethodNotAllowed, type Answer } from './answer.ts';
import { apiRoute, routeTakes } from './routes.ts';
import { logLimited } from '../log.ts';
import { withinDeadline } from '../run-deadline.ts';
import { asCaller } from '../run-caller.ts';
import { atomicStatus, lockNodeProblem, type AtomicStatus } from '../explorer/atomic-runtime.ts';
import { classify, RunTimeoutError, type Failure } from './failures.ts';
import type { RunKind } from '../catalogue/run-timeout.ts';
import { InputError } from '../input/fields.ts';
import { LIMITS } from '../contract/limits.ts';
import type { SandboxState } from '../contract/live-state.ts';
import { EXPERIMENTS, type Experiment } from './registry.ts';
import { EXPERIMENT_NAMES, isExperimentName, rowOf } from '../contract/experiment-table.ts';
import { HEALTH_PING_MS, RUN_ANSWER_MARGIN_MS } from '../settings/bounds.ts';
import { runSettings } from '../settings/environment.ts';
import { explorerRuntime } from '../explorer/runtime.ts';
import { grantOf, type CapabilityName, type Grant } from '../explorer/grants.ts';

// The pool ends a run at its deadline (cancelling its commands, flushing its keyspace); this second
// bound, a little later, covers runs that lease nothing.
const RUN_TIMEOUT_MS = runSettings().deadlineMs + RUN_ANSWER_MARGIN_MS;

export type { Answer };

/** What the API reads of a request: its method, its content type, and its body up to a limit. */
export interface Asked {
  /** The client's address as the front read it (peer.ts); absent when no front asked (tests). */
  from?: string;
  method: string;
  contentType: string;
  /** The body's bytes, or null when it is over `limit` bytes (by Content-Length or as read). */
  readBody(limit: number): Promise<Uint8Array | null>;
}

/** What GET /api/experiments answers (its schema in the OpenAPI document is read from this type). */
export interface Catalogue {
  /** Where the OpenAPI document of the API is. */
  openapi: string;
  experiments: Array<{
    name: string;
    method: 'POST';
    path: string;
    summary: string;
    /** Each field it takes, in words. */
    input: Record<string, string>;
    /** A body that runs it. */
    example: unknown;
    /** Its body's cap in bytes, when it is not `limits.bodyBytes`. */
    bodyBytes?: number;
  }>;
  /** The caps on what a reader sends (server/contract/limits.ts). */
  limits: { [Name in keyof typeof LIMITS]: number };
  /** The arity of every EMQ.* command. */
  commands: CommandArity[];
  /** Every error code: who answers it, when, and its exact text. */
  errors: readonly ErrorCode[];
}

export function catalogue(): Answer {
  const experiments: Catalogue['experiments'] = EXPERIMENT_NAMES.map((name) => {
    const { summary, input, example, bodyBytes } = rowOf(name);
    return {
      name,
      method: 'POST',
      path: `/api/experiments/${name}`,
      summary,
      input,
      example,
      ...(bodyBytes ? { bodyBytes } : {}),
    };
  });
  const body: Catalogue = {
    openapi: OPENAPI_PATH,
    experiments,
    limits: LIMITS,
    commands: commandArities(),
    errors: ERROR_CODES,
  };
  return json(200, body);
}

/** One decoder for every body: decoding whole (not streamed) keeps no state between bodies. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export async function answerExperiment(asked: Asked, name: string | undefined): Promise<Answer> {
  if (name === undefined || !isExperimentName(name)) {
    return refusal('UNKNOWN_EXPERIMENT', { name: quoted(name ?? ''), names: EXPERIMENT_NAMES.join(', ') });
  }
  const experiment: Experiment = EXPERIMENTS[name];
  if (!routeTakes('experiment', asked.method)) return routeMethodNotAllowed(asked.method, 'experiment');
  const type = asked.contentType;
  if (!/^application\/json\s*(;|$)/i.test(type))
    return refusal('CONTENT_TYPE', { type: quoted(type || 'nothing') });
  const limit = rowOf(name).bodyBytes ?? LIMITS.bodyBytes;
  const bytes = await asked.readBody(limit);
  if (bytes === null) return refusal('TOO_LARGE', { bytes: limit });
  let body: unknown;
  try {
    body = bytes.length === 0 ? {} : JSON.parse(strictUtf8.decode(bytes));
  } catch (error) {
    const why =
      error instanceof TypeError
        ? 'it is not valid UTF-8'
        : `it is not valid JSON (${(error as Error).message})`;
    return refusal('BAD_JSON', { why });
  }

  let input: unknown;
  try {
    input = experiment.parse(body);
  } catch (error) {
    if (error instanceof InputError) return refusalSaying('BAD_INPUT', error.message, { field: error.field });
    throw error;
  }

  try {
    return json(200, { experiment: name, result: await runExperiment(experiment, input, asked.from) });
  } catch (error) {
    return failed(`experiment ${name}`, error);
  }
}

/**
 * One run, as every way into a run makes it — the API above and the server island (island.ts): on
 * this process's runtime, given what its row names (grants.ts), ended at the run deadline (the pool
 * cancels a leased run's commands and flushes its keyspace; this bound covers runs that lease nothing,
 * and its deadline cuts what such a run holds: run-deadline.ts), for the reader at `from`
 * (run-caller.ts). Failures are the caller's to classify (`classify`, failures.ts).
 */
export async function runExperiment<I, R, N extends CapabilityName>(
  experiment: {
    grant: readonly N[];
    run: (grant: Grant<N>, input: I) => Promise<R>;
    /** What the run holds, for its TIMEOUT's text (`run` when it does not say). */
    kind?(input: I): RunKind;
  },
  input: I,
  from?: string,
): Promise<R> {
  const grant = grantOf(await explorerRuntime(), experiment.grant);
  return asCaller(from, () =>
    withinDeadline(
      RUN_TIMEOUT_MS,
      () => new RunTimeoutError(RUN_TIMEOUT_MS, experiment.kind?.(input) ?? 'run'),
      () => experiment.run(grant, input),
    ),
  );
}

/** What a failed run was, by `classify`; a bug of ours is logged (rate-limited) here, once. */
export function classified(what: string, error: unknown): Failure {
  const failure = classify(error);
  if (failure.bug) logLimited(`${what} failed`, String((error as Error)?.message ?? error), error);
  return failure;
}

/** A failure as an honest JSON answer; a bug of ours is logged, never sent. */
export function failed(what: string, error: unknown): Answer {
  const failure = classified(what, error);
  const headers: Record<string, string> =
    failure.retryAfter === undefined ? {} : { 'retry-after': String(failure.retryAfter) };
  return refusalSaying(failure.code, failure.message, {}, headers);
}

/** What the sandbox is now, as GET /api/sandbox and the server island (island.ts) both tell it. */

/** How long the status waits for the cluster check's reading (its nodes are each asked within HEALTH_PING_MS). */
const SLOT_MAP_READ_MS = 2 * HEALTH_PING_MS;

/** `promise`'s value, or `late` once `ms` have passed. */
function answeredWithin<T>(promise: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((resolve) => (timer = setTimeout(() => resolve(late), ms))),
  ]);
}

/**
 * `down` when a node does not answer, `degraded` (with `problems`) when some node says its
 * `cluster_state` is not ok (a node back from a freeze, before its peers count it again) or the cluster's
 * slot map would fail runs, else `up`.
 */
export async function sandboxState(): Promise<SandboxState> {
  try {
    const runtime = await explorerRuntime();
    if (!(await runtime.health())) return { sandbox: 'down', native: runtime.native(), problems: [] };
    const [states, slotMap] = await Promise.all([
      runtime.stateProblems(),
      // The check reads the migration turn's lock first, on the node holding the site's locks: with
      // that node frozen it waited as long as the freeze, and the status with it (20 s and more).
      answeredWithin(runtime.clusterProblems(), SLOT_MAP_READ_MS, [
        `the cluster's slot map was not read within ${SLOT_MAP_READ_MS} ms`,
      ]),
    ]);
    const problems = [...states, ...slotMap];
    return { sandbox: problems.length > 0 ? 'degraded' : 'up', native: runtime.native(), problems };
  } catch {
    return { sandbox: 'down', native: false, problems: [] };
  }
}

/**
 * Whether the sandbox answers (503 when down, the same body), for the island's status line (`sandboxState`, with `problems` only when
 * degraded); and where the Valkey 9.1 cluster of the reshard's atomic mode stands (`atomic`: up,
 * starting, being built, or not available and why).
 */
export async function sandboxStatus(): Promise<Answer> {
  const [atomic, { problems, ...state }] = await Promise.all([atomicStatusWithNeeds(), sandboxState()]);
  const body: SandboxStatus = { ...state, ...(state.sandbox === 'degraded' ? { problems } : {}), atomic };
  // Down is a 503, so that whatever polls it (a balancer, a monitor) reads it from the status alone.
  return json(state.sandbox === 'down' ? 503 : 200, body);
}

/** What GET /api/sandbox answers (its schema in the OpenAPI document is read from this type). */
export interface SandboxStatus {
  sandbox: SandboxState['sandbox'];
  native: SandboxState['native'];
  /** What the cluster check found and could not repair: only when `degraded`. */
  problems?: string[];
  /** Where the Valkey 9.1 cluster of the reshard's atomic mode stands. */
  atomic: AtomicStatus;
}

/**
 * The atomic half's status, and `degraded` when what its runs need on the Valkey 8 side is not serving:
 * the node holding the site's locks, where every atomic run takes its reader's share (atomic-runtime.ts).
 */
async function atomicStatusWithNeeds(): Promise<AtomicStatus> {
  const atomic = await atomicStatus();
  if (atomic.state !== 'up') return atomic;
  const problem = await explorerRuntime().then(
    (runtime) => lockNodeProblem(runtime.clusterAdmin, runtime.clusterAdminNode),
    () => 'the Valkey 8 cluster, where every atomic run takes its turn, is not reached',
  );
  return problem ? { ...atomic, state: 'degraded', message: `${atomic.message}; ${problem}` } : atomic;
}

/** The API's routes (server/api/routes.ts): the catalogue, one experiment's runs, the sandbox's status; JSON 404 for the rest. */
export async function answerApi(path: string, asked: Asked): Promise<Answer> {
  const route = apiRoute(path);
  if (route?.name === 'catalogue')
    return routeTakes('catalogue', asked.method)
      ? catalogue()
      : routeMethodNotAllowed(asked.method, 'catalogue');
  if (route?.name === 'experiment') {
    const raw = route.experiment!;
    let name = raw;
    try {
      name = decodeURIComponent(raw);
    } catch {
      // Not percent-encoding: the name as sent, which names no experiment.
    }
    return answerExperiment(asked, name);
  }
  if (route?.name === 'sandbox')
    return routeTakes('sandbox', asked.method)
      ? sandboxStatus()
      : routeMethodNotAllowed(asked.method, 'sandbox');
  if (route?.name === 'openapi')
    return routeTakes('openapi', asked.method)
      ? json(200, openapiDocument())
      : routeMethodNotAllowed(asked.method, 'openapi');
  return refusal('NOT_FOUND', { path }, { variant: 'api' });
}
