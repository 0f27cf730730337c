// What a load balancer reads, by the names Kubernetes uses: GET /livez answers 200 while the process
// serves at all; GET /readyz answers 200 while it serves runs and 503 while it drains (server/drain.ts)
// or its sandbox is down (a degraded cluster still serves the standalone's runs: ready). Neither is
// rate-limited: the sandbox's state is read at most once a second, however often a balancer asks.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { json, methodNotAllowed } from '../api/answer.ts';
import { sandboxState } from '../api/api.ts';
import type { SandboxState } from '../contract/live-state.ts';
import { isDraining } from '../drain.ts';
import { READINESS_CACHE_MS } from '../settings/bounds.ts';
import { writeAnswer } from './write-answer.ts';

export const LIVENESS_PATH = '/livez';
export const READINESS_PATH = '/readyz';

export function isHealthPath(path: string): boolean {
  return path === LIVENESS_PATH || path === READINESS_PATH;
}

let reading: { at: number; state: Promise<SandboxState['sandbox']> } | undefined;

/** The sandbox's state, read at most once every READINESS_CACHE_MS (concurrent askers share one read). */
function sandboxNow(): Promise<SandboxState['sandbox']> {
  if (!reading || performance.now() - reading.at >= READINESS_CACHE_MS) {
    reading = { at: performance.now(), state: sandboxState().then((state) => state.sandbox) };
  }
  return reading.state;
}

export async function serveHealth(request: IncomingMessage, response: ServerResponse, path: string) {
  const method = request.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD')
    return writeAnswer(
      request,
      response,
      methodNotAllowed(method, ['GET', 'HEAD'], `GET ${path} is a health check`),
    );
  if (path === LIVENESS_PATH) return writeAnswer(request, response, json(200, { live: true }));
  if (isDraining()) return writeAnswer(request, response, json(503, { ready: false, why: 'draining' }));
  const sandbox = await sandboxNow();
  if (sandbox === 'down')
    return writeAnswer(request, response, json(503, { ready: false, why: 'the sandbox is down', sandbox }));
  writeAnswer(request, response, json(200, { ready: true, sandbox }));
}
