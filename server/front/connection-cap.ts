// The connection caps, per address and overall, kept so that a reader who sends a whole request is
// served. A new connection at a cap takes the place of the oldest one that is not inside a request —
// one that has sent no complete request yet, or sits idle between requests.
//
// Per address: a flood of half-open connections from one address (a school, an office, a carrier's
// NAT) used to fill that address's places, and a fresh reader from it was reset at once for as long as
// the flood lasted. Now each newcomer takes the place of its own address's oldest waiting connection, so
// the flood only churns its own places: the reader's connection is the newest, and its request is whole
// long before the flood's next 63 connections could make it the oldest.
//
// Overall: Node's own cap (server.maxConnections) refuses the newest connection, so a flood of
// half-open connections from many addresses, each under its per-address cap, held every place and a
// fresh reader was reset (9 of 35 served, with 199 addresses × 64). Here the newcomer takes the place
// of the oldest waiting connection of any address — unless its address already holds more than a
// browser opens: it would only trade one of a flood's connections for another, and a flood that
// re-opens every closed connection at once turned that trade into a churn that kept the reader waiting
// (bench/half-open-flood.ts: 73% served, median 763 ms; 98%, median 4 ms, once the flood's own new
// connections were refused).
//
// And by address: a flood of slow bodies (whole headers, then a byte every few seconds) from 300
// addresses held every place "inside a request", and the newcomer was refused — a fresh reader was
// served half the time; and taking the oldest waiting connection of any address took an honest reader's
// idle kept-alive one in favour of a flood's. So the place is taken from the address holding the most —
// its oldest waiting connection, else its oldest, inside a request or not — when it holds more than
// the newcomer's address would; else from the oldest waiting connection of an address holding at least
// as many as the newcomer's would (many readers with one idle connection each make way for one more);
// else the newcomer is refused. Many addresses each holding many slow connections give way to an
// address holding one, and never the other way round. Each slow body also keeps a pace (body-pace.ts),
// so the places a flood holds come back soon.

import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Connections an address may hold and still take a waiting one's place at the cap (a browser opens 6). */
export const SHEDS_FOR_AT_MOST = 8;

/** Waiting connections looked at, oldest first, for one whose address holds enough to give a place up. */
const SCAN_WAITING = 64;

export interface CapLimits {
  /** Connections open at once, from every address. */
  max: number;
  /** Connections open at once from one address. */
  perAddress: number;
  /** The address a socket counts against, or null for one that is not capped (a trusted proxy). */
  addressOf(socket: Socket): string | null;
}

export interface CapCounts {
  /** Connections open now. */
  open(): number;
  /** Connections shed so far to make room for newer ones. */
  shed(): number;
}

/** The oldest member of an insertion-ordered set, or undefined. */
const oldestOf = (set: Set<Socket> | undefined): Socket | undefined => set?.values().next().value;

interface Holding {
  all: Set<Socket>;
  waiting: Set<Socket>;
}

/** The address holding the most connections (the first found of those tied), or undefined. */
function mostHeld(byAddress: Map<string, Holding>): Holding | undefined {
  let most: Holding | undefined;
  for (const holding of byAddress.values()) if (!most || holding.all.size > most.all.size) most = holding;
  return most;
}

/** Holds `server` to the caps in `limits`, shedding the oldest waiting connection for each new one. */
export function capConnections(server: Server, limits: CapLimits): CapCounts {
  const open = new Set<Socket>();
  /** Sockets not inside a request, oldest first (a Set keeps insertion order). */
  const waiting = new Set<Socket>();
  /** Each capped address's sockets, and those of them that are waiting, oldest first. */
  const byAddress = new Map<string, Holding>();
  const addressOf = new Map<Socket, string>();
  /** Requests a socket has in hand (more than one when a client pipelines). */
  const inside = new Map<Socket, number>();
  let shedCount = 0;

  const forget = (socket: Socket) => {
    open.delete(socket);
    waiting.delete(socket);
    inside.delete(socket);
    const address = addressOf.get(socket);
    if (address === undefined) return;
    addressOf.delete(socket);
    const held = byAddress.get(address);
    held?.all.delete(socket);
    held?.waiting.delete(socket);
    if (held?.all.size === 0) byAddress.delete(address);
  };
  const setWaiting = (socket: Socket, isWaiting: boolean) => {
    const held = byAddress.get(addressOf.get(socket) ?? '');
    if (isWaiting) {
      waiting.add(socket);
      held?.waiting.add(socket);
    } else {
      waiting.delete(socket);
      held?.waiting.delete(socket);
    }
  };
  /**
   * The oldest waiting connection whose address holds at least `count` (or is not capped), among the
   * oldest SCAN_WAITING: under a flood those are its own, and a longer search would cost every newcomer.
   */
  const oldestWaitingHolding = (count: number): Socket | undefined => {
    let looked = 0;
    for (const socket of waiting) {
      const address = addressOf.get(socket);
      if (address === undefined || (byAddress.get(address)?.all.size ?? 0) >= count) return socket;
      if ((looked += 1) >= SCAN_WAITING) return undefined;
    }
    return undefined;
  };
  const shed = (socket: Socket) => {
    forget(socket);
    socket.destroy();
    shedCount += 1;
  };

  server.on('connection', (socket: Socket) => {
    if (socket.destroyed) return;
    const address = limits.addressOf(socket);
    const held = address === null ? undefined : byAddress.get(address);
    if (held && held.all.size >= limits.perAddress) {
      const oldest = oldestOf(held.waiting);
      // Every place of this address is a request in hand.
      if (!oldest) return void socket.destroy();
      shed(oldest);
    }
    if (open.size >= limits.max) {
      const holds = held?.all.size ?? 0;
      // The newcomer's address is already a crowd: it would only trade one of its places for another.
      if (holds >= SHEDS_FOR_AT_MOST) return void socket.destroy();
      const most = mostHeld(byAddress);
      const place =
        most && most.all.size > holds + 1
          ? (oldestOf(most.waiting) ?? oldestOf(most.all))
          : oldestWaitingHolding(holds + 1);
      if (!place) return void socket.destroy();
      shed(place);
    }
    open.add(socket);
    if (address !== null) {
      addressOf.set(socket, address);
      const mine: Holding = byAddress.get(address) ?? { all: new Set<Socket>(), waiting: new Set<Socket>() };
      byAddress.set(address, mine);
      mine.all.add(socket);
    }
    setWaiting(socket, true);
    socket.once('close', () => forget(socket));
  });

  // Before the site's own handler, which may answer at once: the answer's end is never missed.
  server.prependListener('request', (request, response) => {
    const socket = request.socket;
    if (!open.has(socket)) return;
    setWaiting(socket, false);
    inside.set(socket, (inside.get(socket) ?? 0) + 1);
    let done = false;
    const answered = () => {
      if (done) return;
      done = true;
      const left = (inside.get(socket) ?? 1) - 1;
      if (left > 0) return void inside.set(socket, left);
      inside.delete(socket);
      // Idle on keep-alive from now: the newest of the waiting ones.
      if (open.has(socket) && !socket.destroyed) setWaiting(socket, true);
    };
    response.once('finish', answered);
    response.once('close', answered);
  });

  return { open: () => open.size, shed: () => shedCount };
}
