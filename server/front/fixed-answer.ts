// An answer that is the same for every request (the catalogue, GET /api/experiments): made once, kept
// in each encoding (brotli and gzip at their best, since it is compressed once, and as it is), with a
// strong ETag per encoding, so a request costs a lookup and a write, and one that already holds it a 304.

import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Answer } from '../api/answer.ts';
import { chooseEncoding } from './compress.ts';

interface Variant {
  body: Buffer;
  etag: string;
}

export interface FixedAnswer {
  write(request: IncomingMessage, response: ServerResponse): void;
}

/** Whether `header` (If-None-Match) names `etag`: weak comparison, as RFC 9110 asks of it, or `*`. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === bare(etag));
}

/** `answer` made once: its JSON, brotli and gzip bodies, each with its ETag. */
export function fixedAnswer(answer: Answer, cacheControl = 'no-cache'): FixedAnswer {
  const plain = Buffer.from(JSON.stringify(answer.body));
  const hash = createHash('sha256').update(plain).digest('base64url').slice(0, 22);
  const variants: Record<'identity' | 'br' | 'gzip', Variant> = {
    identity: { body: plain, etag: `"${hash}"` },
    br: {
      body: brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      etag: `"${hash}-br"`,
    },
    gzip: { body: gzipSync(plain, { level: 9 }), etag: `"${hash}-gz"` },
  };
  return {
    write(request, response) {
      const encoding = chooseEncoding(request.headers['accept-encoding'] as string | undefined);
      const { body, etag } = variants[encoding ?? 'identity'];
      const headers: Record<string, string> = {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': cacheControl,
        vary: 'Accept-Encoding',
        etag,
        ...answer.headers,
        ...(encoding ? { 'content-encoding': encoding } : {}),
      };
      if (matchesEtag(request.headers['if-none-match'], etag)) {
        delete headers['content-encoding'];
        response.writeHead(304, headers);
        return void response.end();
      }
      headers['content-length'] = String(body.length);
      response.writeHead(answer.status, headers);
      response.end(request.method === 'HEAD' ? undefined : body);
    },
  };
}
