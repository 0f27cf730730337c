// The overall connection cap, kept so that a reader who sends a whole request is served. Node's own
// cap (server.maxConnections) refuses the newest connection, so a flood of half-open connections
// from many addresses, each under its per-address cap, held every place and a fresh reader was reset
// (9 of 35 served, with 199 addresses × 64). Here a new connection at the cap takes the place of the
// oldest one that is not inside a request — one that has sent no complete request yet, or sits idle
// between requests — and only when every connection is inside a request is the new one refused. A new
// connection from an address that already holds more than a browser opens takes no one's place: it
// would only trade one of a flood's connections for another, and a flood that re-opens every closed
// connection at once turned that trade into a churn that kept the reader waiting (bench/half-open-flood.ts:
// 73% served, median 763 ms; 98%, median 4 ms, once the flood's own new connections were refused).

import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Connections an address may hold and still take a waiting one's place at the cap (a browser opens 6). */
export const SHEDS_FOR_AT_MOST = 8;

export interface CapCounts {
  /** Connections open now. */
  open(): number;
  /** Connections shed so far to make room for newer ones. */
  shed(): number;
}

/**
 * Holds `server` to `max` open connections, shedding the oldest waiting one for each new one. Call it
 * after any other `connection` listener that may refuse a socket (a socket already destroyed counts
 * for nothing here).
 */
export function capConnections(
  server: Server,
  max: number,
  /** Connections open from the socket's address, itself included (0 when it is not counted). */
  heldBy: (socket: Socket) => number,
): CapCounts {
  const open = new Set<Socket>();
  /** Sockets not inside a request, oldest first (a Set keeps insertion order). */
  const waiting = new Set<Socket>();
  /** Requests a socket has in hand (more than one when a client pipelines). */
  const inside = new Map<Socket, number>();
  let shedCount = 0;

  server.on('connection', (socket: Socket) => {
    if (socket.destroyed) return;
    if (open.size >= max) {
      const oldest = waiting.keys().next();
      // Every place is a request in hand, or the newcomer's address is already a crowd.
      if (oldest.done || heldBy(socket) > SHEDS_FOR_AT_MOST) {
        socket.destroy();
        return;
      }
      waiting.delete(oldest.value);
      open.delete(oldest.value);
      oldest.value.destroy();
      shedCount += 1;
    }
    open.add(socket);
    waiting.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      waiting.delete(socket);
      inside.delete(socket);
    });
  });

  // Before the site's own handler, which may answer at once: the answer's end is never missed.
  server.prependListener('request', (request, response) => {
    const socket = request.socket;
    if (!open.has(socket)) return;
    waiting.delete(socket);
    inside.set(socket, (inside.get(socket) ?? 0) + 1);
    let done = false;
    const answered = () => {
      if (done) return;
      done = true;
      const left = (inside.get(socket) ?? 1) - 1;
      if (left > 0) return void inside.set(socket, left);
      inside.delete(socket);
      // Idle on keep-alive from now: the newest of the waiting ones.
      if (open.has(socket) && !socket.destroyed) waiting.add(socket);
    };
    response.once('finish', answered);
    response.once('close', answered);
  });

  return { open: () => open.size, shed: () => shedCount };
}
