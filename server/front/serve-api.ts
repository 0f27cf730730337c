// The JSON API on Node's HTTP server: the request as the API reads it, the answer written by the edge's
// one JSON writer (write-answer.ts), but for the catalogue, made once with its ETag (fixed-answer.ts). Astro never sees an /api/ request.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerApi, catalogue, type Asked } from '../api/api.ts';
import { apiRoute, routeTakes } from '../api/routes.ts';
import { fixedAnswer, type FixedAnswer } from './fixed-answer.ts';
import { markUnread, writeAnswer } from './write-answer.ts';

/** The catalogue does not change while the process runs: made and compressed once, on first ask. */
let fixedCatalogue: FixedAnswer | undefined;

/** Reads at most `limit` bytes, whatever Content-Length claims; what is over is left unread. */
function readBody(request: IncomingMessage, limit: number): Promise<Uint8Array | null> {
  if (Number(request.headers['content-length'] ?? 0) > limit) {
    markUnread(request); // not read, nor drained: however long it says it is
    return Promise.resolve(null);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      request.off('data', onData).pause();
      markUnread(request);
      resolve(null);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks, size)));
    request.once('error', reject);
  });
}

function asked(request: IncomingMessage, from: string): Asked {
  return {
    from,
    method: request.method ?? 'GET',
    contentType: request.headers['content-type'] ?? '',
    readBody: (limit) => readBody(request, limit),
  };
}

export async function serveApi(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  from: string,
) {
  const method = request.method ?? 'GET';
  if (apiRoute(path)?.name === 'catalogue' && routeTakes('catalogue', method)) {
    fixedCatalogue ??= fixedAnswer(catalogue());
    return fixedCatalogue.write(request, response);
  }
  writeAnswer(request, response, await answerApi(path, asked(request, from)));
}
