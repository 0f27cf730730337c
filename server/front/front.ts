// Our own HTTP server in front of Astro's handler: it holds the limits that keep one client from
// locking everyone out — connection caps (per address and overall, below the file limit), short header,
// body and keep-alive timeouts, a pace every request body keeps — the rate limiter's budgets in front of
// every API route and island (runs, reads of the catalogue, the status: routes.ts), the JSON API (handed
// past Astro: a run's answer is all the request is for), the JSON answers for what Astro cannot take
// (TRACE, CONNECT, the image endpoint), compression, and the headers of a public site
// (security-headers.ts) on every answer, whoever writes it.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { methodNotAllowed, refusal, refusalSaying } from '../api/answer.ts';
import { budgetOf, isImagePath, type Budget } from '../api/routes.ts';
import { logLimited } from '../log.ts';
import { projectRoot } from '../project-root.ts';
import { canonicalPath, PathError } from './canonical-path.ts';
import { observed } from '../observe/access-log.ts';
import { observeShed } from '../observe/metrics.ts';
import { setCachePolicy } from './cache-policy.ts';
import { compressResponse } from './compress.ts';
import { paceBodies } from './body-pace.ts';
import { capConnections } from './connection-cap.ts';
import { isExpectedAbort } from './expected-abort.ts';
import { isHealthPath, serveHealth } from './health.ts';
import { normalize, peerOf } from './peer.ts';
import { RateLimiter } from './rate-limit.ts';
import { fromAbsoluteForm } from './request-target.ts';
import { siteHeaders } from './security-headers.ts';
import type { FrontSettings } from '../settings/environment.ts';
import { CONSOLE_LIMITS } from '../contract/limits.ts';
import { writeAnswer } from './write-answer.ts';

export type Handler = (request: IncomingMessage, response: ServerResponse) => unknown;

/** The routes the front hands past Astro: the JSON API (`owns` says which paths are its). */
export interface Api {
  owns(path: string): boolean;
  /** `from`: the client's address as the limiter reads it (peer.ts), for what a run shares per reader. */
  serve(request: IncomingMessage, response: ServerResponse, path: string, from: string): Promise<void>;
}

/** Methods a web-standard Request can carry; Astro fails on the others (TRACE, CONNECT, TRACK…). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

export function createFront(handler: Handler, api: Api, settings: FrontSettings): Server {
  const logAddresses = settings.logAddresses ?? 'none';
  // One bucket per budget and client, each of the same size: a monitor's status checks draw nothing
  // from the reader's runs, nor a catalogue flood from either.
  const budget = () => new RateLimiter({ burst: settings.burst, perSecond: settings.ratePerSecond });
  const limiters: Record<Budget, RateLimiter> = { runs: budget(), reads: budget(), status: budget() };
  const trusted = (address: string | undefined) =>
    settings.trustProxy.includes(address?.replace(/^::ffff:/, '') ?? '');

  // Read from the built pages once: the site is restarted after every build.
  const headers = Object.entries(siteHeaders(join(projectRoot(), 'dist', 'client')));
  const rawHeaders = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');

  const serve = (request: IncomingMessage, response: ServerResponse) => {
    // First of all, so that every answer below carries them: writeHead merges what was set here.
    for (const [name, value] of headers) response.setHeader(name, value);
    // An absolute-form target is its path from here on, the access log's included.
    const absolute = fromAbsoluteForm(request.url ?? '/');
    if (absolute) {
      request.url = absolute.path;
      request.headers.host = absolute.host;
    }
    const target = request.url ?? '/';
    const path = target.split('?', 1)[0]!;
    // Every request is one line of the access log, and every failure it logs names its id.
    observed(request, response, path, peerOf(request, settings.trustProxy), logAddresses, () =>
      handle(request, response),
    );
  };

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const method = request.method ?? 'GET';
    const target = request.url ?? '/';
    const queryAt = target.indexOf('?');
    const raw = queryAt < 0 ? target : target.slice(0, queryAt);
    let path: string;
    try {
      path = canonicalPath(raw);
    } catch (error) {
      if (!(error instanceof PathError)) throw error;
      return writeAnswer(request, response, refusalSaying('BAD_PATH', error.message));
    }
    // Read once: the limiter below, the API and Astro's router all see this one spelling.
    if (path !== raw) request.url = path + (queryAt < 0 ? '' : target.slice(queryAt));
    // Forwarding headers from anyone but a named proxy are the client's own words: drop them before
    // Astro reads them as the client's address.
    if (!trusted(request.socket.remoteAddress)) {
      for (const name of ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded'])
        delete request.headers[name];
    }
    if (!METHODS.has(method)) {
      const takes = `this site answers ${[...METHODS].join(', ')}`;
      return writeAnswer(request, response, methodNotAllowed(method, [...METHODS], takes));
    }
    // A balancer's checks: never rate-limited, never counted as work.
    if (isHealthPath(path)) return void serveHealth(request, response, path).catch(() => response.destroy());
    if (isImagePath(path)) {
      return writeAnswer(request, response, refusal('NOT_FOUND', {}, { variant: 'image' }));
    }
    const drawsOn = budgetOf(method, path);
    if (drawsOn) {
      const wait = limiters[drawsOn].take(peerOf(request, settings.trustProxy));
      if (wait > 0) {
        // The connection goes with the refusal: a client pipelining past its budget (32 connections of
        // 50 catalogue reads each) was otherwise answered 12,000 refusals a second, which cost every
        // reader its CPU; now each refusal costs it a new connection.
        const headers = { 'retry-after': String(wait), connection: 'close' };
        return writeAnswer(request, response, refusal('RATE_LIMITED', { seconds: wait }, { headers }));
      }
    }
    // The API writes its JSON whole, compressed in one call; Astro's answers are compressed as they stream.
    const toApi = api.owns(path);
    if (!toApi) {
      setCachePolicy(path, response);
      compressResponse(request, response);
    }
    Promise.resolve()
      .then(() =>
        toApi
          ? api.serve(request, response, path, peerOf(request, settings.trustProxy))
          : handler(request, response),
      )
      .catch((error: unknown) => {
        if (isExpectedAbort(error)) {
          logLimited('request abandoned', `${method} ${path}: ${(error as Error).message}`);
          return void response.destroy();
        }
        logLimited('request failed', `${method} ${path}`, error);
        if (!response.headersSent)
          writeAnswer(request, response, refusal('INTERNAL', {}, { variant: 'front' }));
        else response.destroy();
      });
  };

  const server = createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      // How often the header and request timeouts are checked (Node's default is 30 s).
      connectionsCheckingInterval: 1000,
      maxHeaderSize: 16 * 1024,
    },
    serve,
  );
  // A socket idle this long (a client that stopped reading the answer) is closed.
  server.timeout = settings.requestTimeoutMs * 2;

  // The proxy caps its own clients: its connections count against no address.
  const caps = capConnections(server, {
    max: settings.maxConnections,
    perAddress: settings.maxConnectionsPerAddress,
    addressOf: (socket) => (trusted(socket.remoteAddress) ? null : normalize(socket.remoteAddress)),
  });
  observeShed(caps.shed);
  /** Answers `status` on a raw socket and closes it: for what never reaches a ServerResponse. */
  const closeWith = (socket: Duplex, status: string, head = '', body = '') => {
    if (socket.writable && !socket.destroyed) {
      const length = Buffer.byteLength(body);
      socket.end(
        `HTTP/1.1 ${status}\r\n${rawHeaders}${head}connection: close\r\ncontent-length: ${length}\r\n\r\n${body}`,
      );
      // end() alone can leave the descriptor open under a flood (the paused socket never reads the
      // peer's FIN): a slowloris must not keep its connections after the timeout.
      setTimeout(() => socket.destroy(), 500).unref();
    } else socket.destroy();
  };
  // A body slower than its pace: 408, and the connection closed (a ServerResponse, if any, is dropped).
  paceBodies(
    server,
    {
      graceMs: settings.bodyGraceMs,
      bytesPerSecond: settings.bodyBytesPerSecond,
      mostMs: settings.requestTimeoutMs,
      unknownBytes: CONSOLE_LIMITS.bodyBytes,
    },
    (socket) => closeWith(socket, '408 Request Timeout'),
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Not logged: a malformed or abandoned request is the client's business, and a flood of them is
    // exactly what must not reach the log.
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    closeWith(socket, timedOut ? '408 Request Timeout' : '400 Bad Request');
  });
  // CONNECT (a proxy's tunnel) never reaches the request handler: Node closes it unanswered unless told.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    const takes = `this site answers ${[...METHODS].join(', ')}`;
    const answer = methodNotAllowed('CONNECT', [...METHODS], takes);
    const head = Object.entries({ 'content-type': 'application/json; charset=utf-8', ...answer.headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    closeWith(socket, '405 Method Not Allowed', head, JSON.stringify(answer.body));
  });
  return server;
}
