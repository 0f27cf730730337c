// A request body keeps a pace (settings/environment.ts: BODY_GRACE_MS, then BODY_BYTES_PER_S), or its
// connection is closed: a flood of slow bodies (whole headers, then a byte every few seconds) held
// each place for the whole request timeout, 15 s, and a few hundred addresses held every place. Read
// from when the headers are whole until the body is (`end`), whether or not the site reads it: a body
// the site answered without reading (a 429, a 404) must still come whole before the connection is kept.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface BodyPace {
  /** Time for a body to start. */
  graceMs: number;
  /** Bytes a second a body must then keep. */
  bytesPerSecond: number;
  /** The longest any body may take (the request timeout). */
  mostMs: number;
  /** What a body of unknown length (chunked) is reckoned at: the largest the site reads. */
  unknownBytes: number;
}

/** Whether `request` has a body to wait for (a length over 0, or chunked). */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return request.headers['transfer-encoding'] !== undefined;
}

/** The time `request`'s body may take, whole, from its headers. */
export function bodyAllowanceMs(request: IncomingMessage, pace: BodyPace): number {
  const length = Number(request.headers['content-length'] ?? pace.unknownBytes);
  const bytes = Number.isFinite(length) && length > 0 ? length : pace.unknownBytes;
  return Math.min(pace.mostMs, pace.graceMs + Math.ceil((bytes / pace.bytesPerSecond) * 1000));
}

/** Holds every body `server` reads to `pace`; a body too slow has its connection closed by `close`. */
export function paceBodies(server: Server, pace: BodyPace, close: (socket: Socket) => void): void {
  // Before the site's own handler, which may answer (and so finish) at once.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!hasBody(request) || request.complete) return;
    const socket = request.socket;
    const timer = setTimeout(
      () => {
        done();
        if (request.complete || socket.destroyed) return;
        // The 408 goes out on the socket itself; the response says it too, so the access log does.
        if (!response.headersSent) response.statusCode = 408;
        close(socket);
      },
      bodyAllowanceMs(request, pace),
    );
    const done = () => {
      clearTimeout(timer);
      request.off('end', done);
      socket.off('close', done);
    };
    request.once('end', done);
    socket.once('close', done);
  });
}
