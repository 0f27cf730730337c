// Compresses what is worth compressing (HTML, CSS, JS, JSON, text, markdown, SVG) with brotli or gzip,
// as the client's `accept-encoding` prefers (its q-values honoured), for whatever handler writes the response: Astro's static
// files, its pages and server islands, our JSON. Every compressible answer says `vary: accept-encoding`,
// compressed or not, so a cache never hands gzip to a client that did not ask for it.

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import Negotiator from 'negotiator';
import {
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createGzip,
  gzipSync,
  type BrotliCompress,
  type Gzip,
} from 'node:zlib';

const COMPRESSIBLE =
  /^\s*(text\/(html|css|plain|markdown|javascript)|application\/(json|javascript|xml|manifest\+json)|image\/svg\+xml)\s*(;|$)/i;
/** Smaller bodies are sent as they are: the headers would cost more than the bytes saved. */
const MIN_BYTES = 512;

export type Encoding = 'br' | 'gzip';

/**
 * The choice made for each `accept-encoding` header met: browsers send one of a handful, and
 * negotiating parses the header anew each time. Bounded: emptied when full.
 */
const chosen = new Map<string, Encoding | null>();
const CHOICES_KEPT = 256;

/**
 * The encoding the client prefers among ours, by its q-values (`gzip;q=1, br;q=0.1` is gzip; `q=0`
 * refuses one; `*` stands for the rest; at equal q, brotli), or null for none: negotiated by the
 * `negotiator` package, as Express and Fastify negotiate.
 */
export function chooseEncoding(header: string | undefined): Encoding | null {
  const key = header ?? 'identity';
  const known = chosen.get(key);
  if (known !== undefined) return known;
  if (chosen.size >= CHOICES_KEPT) chosen.clear();
  const negotiator = new Negotiator({ headers: { 'accept-encoding': key } });
  // negotiator 1.x takes `preferred` (ours at equal q); @types/negotiator still describes 0.6.
  const encoding = negotiator.encoding.bind(negotiator) as (
    available: string[],
    options: { preferred: string[] },
  ) => string | undefined;
  const choice = encoding(['br', 'gzip', 'identity'], { preferred: ['br', 'gzip', 'identity'] });
  const answer = choice === 'br' || choice === 'gzip' ? choice : null;
  chosen.set(key, answer);
  return answer;
}

export function isCompressible(contentType: string): boolean {
  return COMPRESSIBLE.test(contentType);
}

function addVary(response: ServerResponse): void {
  const vary = String(response.getHeader('vary') ?? '');
  if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary))
    response.setHeader('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
}

/** Quality 5 of 11: most of the gain for a fraction of the time, on every request. */
const BROTLI_QUALITY = 5;
/**
 * A run's answer is made once and read once: quality 3 costs two thirds of 5's time for about a
 * tenth more bytes (a 6 KB answer: 943 bytes against 847).
 */
const BROTLI_QUALITY_WHOLE = 3;
const GZIP_LEVEL = 6;

/**
 * The encoding a compressible answer goes out in, or null: the client's choice, except for a HEAD, an
 * answer without a body, one already encoded, or one under MIN_BYTES (a length not known yet, NaN, is
 * worth compressing).
 */
function encodingFor(
  request: IncomingMessage,
  status: number,
  encoded: boolean,
  length: number,
): Encoding | null {
  const encoding = chooseEncoding(request.headers['accept-encoding'] as string | undefined);
  if (!encoding || request.method === 'HEAD' || status === 204 || status === 304 || status < 200) return null;
  if (encoded || length < MIN_BYTES) return null;
  return encoding;
}

function brotliParams(quality: number, length: number) {
  return {
    [constants.BROTLI_PARAM_QUALITY]: quality,
    ...(length > 0 ? { [constants.BROTLI_PARAM_SIZE_HINT]: length } : {}),
  };
}

/**
 * Writes a whole body known up front (the JSON API's answers), compressed in one synchronous call when
 * it is worth it: a few tens of µs for a few KB, against a stream and its thread-pool round trip.
 */
export function sendWhole(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): void {
  let out = body;
  if (isCompressible(headers['content-type'] ?? '')) {
    headers.vary = 'Accept-Encoding';
    const encoding = encodingFor(request, status, Boolean(headers['content-encoding']), body.length);
    if (encoding) {
      out =
        encoding === 'br'
          ? brotliCompressSync(body, { params: brotliParams(BROTLI_QUALITY_WHOLE, body.length) })
          : gzipSync(body, { level: GZIP_LEVEL });
      headers['content-encoding'] = encoding;
    }
  }
  headers['content-length'] = String(out.length);
  response.writeHead(status, headers);
  response.end(out);
}

type Chunk = string | Uint8Array;
type Callback = (error?: Error | null) => void;

/** Wraps `response` so that what a handler writes to it goes out compressed when it should. */
export function compressResponse(request: IncomingMessage, response: ServerResponse): void {
  const write = response.write.bind(response) as (chunk: Chunk, cb?: Callback) => boolean;
  const end = response.end.bind(response) as (chunk?: Chunk | Callback, cb?: Callback) => ServerResponse;
  const writeHead = response.writeHead.bind(response) as (status: number, message?: string) => ServerResponse;
  let stream: BrotliCompress | Gzip | null = null;
  let decided = false;

  /** `whole`: the body's size when the handler ends the response with its whole body in one call. */
  const decide = (whole?: number) => {
    if (decided) return;
    decided = true;
    if (!isCompressible(String(response.getHeader('content-type') ?? ''))) return;
    addVary(response);
    const length = whole ?? Number(response.getHeader('content-length') ?? NaN);
    const encoded = Boolean(response.getHeader('content-encoding'));
    const encoding = encodingFor(request, response.statusCode, encoded, length);
    if (!encoding) return;
    stream =
      encoding === 'br'
        ? createBrotliCompress({ params: brotliParams(BROTLI_QUALITY, length) })
        : createGzip({ level: GZIP_LEVEL });
    response.setHeader('content-encoding', encoding);
    response.removeHeader('content-length');
    stream.on('data', (chunk: Buffer) => write(chunk));
    stream.on('end', () => end());
    stream.on('error', () => response.destroy());
  };

  response.writeHead = ((status: number, ...rest: unknown[]) => {
    const message = typeof rest[0] === 'string' ? rest[0] : undefined;
    const headers = rest.find((r) => typeof r === 'object' && r !== null) as
      OutgoingHttpHeaders | Array<string> | undefined;
    response.statusCode = status;
    if (Array.isArray(headers)) {
      for (let i = 0; i + 1 < headers.length; i += 2) response.setHeader(headers[i]!, headers[i + 1]!);
    } else if (headers) {
      for (const [name, value] of Object.entries(headers))
        if (value !== undefined) response.setHeader(name, value);
    }
    decide();
    return writeHead(status, message);
  }) as ServerResponse['writeHead'];

  response.write = ((chunk: Chunk, ...rest: unknown[]) => {
    decide();
    const callback = rest.find((r) => typeof r === 'function') as Callback | undefined;
    if (!stream) return write(chunk, callback);
    stream.write(chunk, callback);
    return true;
  }) as ServerResponse['write'];

  response.end = ((chunk?: Chunk | Callback, ...rest: unknown[]) => {
    const callback = [chunk, ...rest].find((r) => typeof r === 'function') as Callback | undefined;
    const body = typeof chunk === 'function' ? undefined : chunk;
    decide(body === undefined || body === null ? 0 : Buffer.byteLength(body));
    if (!stream) return body === undefined ? end(callback) : end(body, callback);
    if (callback) response.once('finish', () => callback());
    if (body !== undefined && body !== null) stream.end(body);
    else stream.end();
    return response;
  }) as ServerResponse['end'];
}
