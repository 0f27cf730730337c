// The JSON API of the experiments, on web-standard Request and Response so it is tested without a
// framework. Every refusal is JSON — { "error": { "code", "message" } } — with a 4xx status; a sandbox
// outage is a 503 that says so; no stack trace ever leaves the server.

import { commandArities } from '../catalogue/commands.ts';
import { ERROR_CODES } from '../catalogue/error-codes.ts';
import { logLimited } from '../log.ts';
import { classify, RunTimeoutError } from './failures.ts';
import { InputError } from './input.ts';
import { LIMITS } from './browser-safe/limits.ts';
import { EXPERIMENTS } from './registry.ts';
import { explorerRuntime, RUN_DEADLINE_MS } from './runtime.ts';

// The pool ends a run at its deadline (cancelling its commands, flushing its keyspace); this second
// bound, a little later, covers runs that lease nothing.
const RUN_TIMEOUT_MS = RUN_DEADLINE_MS + 1000;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

export function refusal(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): Response {
  return json(status, { error: { code, message, ...extra } });
}

/** Reads at most `limit` bytes, whatever Content-Length claims. */
async function readBody(request: Request, limit: number): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > limit) return null;
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

export function catalogue(): Response {
  const experiments = Object.entries(EXPERIMENTS).map(([name, { summary, input, example, bodyBytes }]) => ({
    name,
    method: 'POST',
    path: `/api/experiments/${name}`,
    summary,
    input,
    example,
    ...(bodyBytes ? { bodyBytes } : {}),
  }));
  return json(200, { experiments, limits: LIMITS, commands: commandArities(), errors: ERROR_CODES });
}

export async function handleExperiment(request: Request, name: string | undefined): Promise<Response> {
  const experiment = name !== undefined && Object.hasOwn(EXPERIMENTS, name) ? EXPERIMENTS[name] : undefined;
  if (!experiment) {
    return refusal(
      404,
      'UNKNOWN_EXPERIMENT',
      `no experiment named ${JSON.stringify(name ?? '')}; the experiments are: ${Object.keys(EXPERIMENTS).join(', ')}`,
    );
  }
  if (request.method !== 'POST') {
    return json(
      405,
      {
        error: {
          code: 'METHOD',
          message: `experiments run with POST and a JSON body, not ${request.method}`,
        },
      },
      { allow: 'POST' },
    );
  }
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    return refusal(
      415,
      'CONTENT_TYPE',
      `send the input as application/json, not ${JSON.stringify(type || 'nothing')}`,
    );
  }
  const limit = experiment.bodyBytes ?? LIMITS.bodyBytes;
  const bytes = await readBody(request, limit);
  if (bytes === null) return refusal(413, 'TOO_LARGE', `the body is over ${limit} bytes`);
  let body: unknown;
  try {
    body = bytes.length === 0 ? {} : JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    const why =
      error instanceof TypeError
        ? 'it is not valid UTF-8'
        : `it is not valid JSON (${(error as Error).message})`;
    return refusal(400, 'BAD_JSON', `cannot read the body: ${why}`);
  }

  let input: unknown;
  try {
    input = experiment.parse(body);
  } catch (error) {
    if (error instanceof InputError) return refusal(400, 'BAD_INPUT', error.message, { field: error.field });
    throw error;
  }

  try {
    const runtime = await explorerRuntime();
    const result = await Promise.race([
      experiment.run(runtime, input),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new RunTimeoutError(RUN_TIMEOUT_MS)), RUN_TIMEOUT_MS).unref(),
      ),
    ]);
    return json(200, { experiment: name, result });
  } catch (error) {
    return failed(`experiment ${name}`, error);
  }
}

/** A failure as an honest JSON answer; a bug of ours is logged (rate-limited), never sent. */
export function failed(what: string, error: unknown): Response {
  const failure = classify(error);
  if (failure.bug) logLimited(`${what} failed`, String((error as Error)?.message ?? error), error);
  const headers: Record<string, string> =
    failure.retryAfter === undefined ? {} : { 'retry-after': String(failure.retryAfter) };
  return json(failure.status, { error: { code: failure.code, message: failure.message } }, headers);
}

/** Whether the sandbox answers, for the island's status line. */
export async function sandboxStatus(): Promise<Response> {
  try {
    const runtime = await explorerRuntime();
    return json(200, { sandbox: (await runtime.health()) ? 'up' : 'down', native: runtime.native() });
  } catch {
    return json(200, { sandbox: 'down', native: false });
  }
}

/** A 405 that says which methods the path takes, in `allow` and in words. */
export function methodNotAllowed(method: string, allow: string, hint: string): Response {
  return json(
    405,
    { error: { code: 'METHOD', message: `${method} is not served here: ${hint}` } },
    { allow },
  );
}
