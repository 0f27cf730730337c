// The one JSON writer of the HTTP edge: every answer of the API and every refusal of the front goes out
// here, whole, with `no-store` and, when the client asks and it is worth it, compressed in one call.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answer } from '../api/answer.ts';
import { noteOutcome } from '../observe/access-log.ts';
import { sendWhole } from './compress.ts';

/** Requests whose body was over the limit and left unread. */
const leftUnread = new WeakSet<IncomingMessage>();

/** Marks a request whose body is left unread past its limit: its answer closes the connection. */
export function markUnread(request: IncomingMessage): void {
  leftUnread.add(request);
}

export function writeAnswer(request: IncomingMessage, response: ServerResponse, answer: Answer): void {
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...answer.headers,
  };
  // A body left unread past the limit cannot be skipped on a kept-alive connection: this answer is its
  // last. (One never read at all, as for a 404, Node reads and drops itself; the connection stays.)
  if (leftUnread.has(request)) headers.connection = 'close';
  const body = answer.body as { code?: unknown; error?: { code?: unknown } } | null;
  const code = body?.error?.code ?? body?.code;
  if (typeof code === 'string') noteOutcome(response, code); // the access log's and the metrics'
  sendWhole(request, response, answer.status, headers, Buffer.from(JSON.stringify(answer.body)));
}
