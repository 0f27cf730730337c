// The JSON API on Node's HTTP server: the request as the API reads it, the answer written whole and,
// when the client asks and it is worth it, compressed in one call. Astro never sees an /api/ request.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerApi, type Answer, type Asked } from '../experiments/http.ts';
import { sendWhole } from './compress.ts';

/** Requests whose body was over the limit and left unread. */
const leftUnread = new WeakSet<IncomingMessage>();

/** Reads at most `limit` bytes, whatever Content-Length claims; what is over is left unread. */
function readBody(request: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  if (Number(request.headers['content-length'] ?? 0) > limit) {
    leftUnread.add(request); // not read, nor drained: however long it says it is
    return Promise.resolve(null);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      request.off('data', onData).pause();
      leftUnread.add(request);
      resolve(null);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks, size)));
    request.once('error', reject);
  });
}

function asked(request: IncomingMessage): Asked {
  return {
    method: request.method ?? 'GET',
    contentType: request.headers['content-type'] ?? '',
    readBody: (limit) => readBody(request, limit),
  };
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
  sendWhole(request, response, answer.status, headers, Buffer.from(JSON.stringify(answer.body)));
}

export async function serveApi(request: IncomingMessage, response: ServerResponse, path: string) {
  writeAnswer(request, response, await answerApi(path, asked(request)));
}
