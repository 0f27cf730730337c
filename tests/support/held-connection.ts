// A raw connection a front test holds open from an address of its choosing, to fill the site's
// connection caps: it writes only what it is told (a half-open request by default) and records
// whether the site closed it and what, if anything, the site answered.

import { connect, type Socket } from 'node:net';

/** A request whose headers never end: the site holds it until its header timeout. */
export const HALF_OPEN = 'GET / HTTP/1.1\r\nHost: l\r\n';

export interface Held {
  socket: Socket;
  closed: Promise<void>;
  isClosed(): boolean;
  answer(): string;
}

/**
 * A connection to the site at `url` from `localAddress` that has written `start` (never a whole
 * request unless told). Every socket goes into `sockets`, for the test's teardown.
 */
export async function holdConnection(
  url: string,
  localAddress: string,
  sockets: Socket[],
  start = HALF_OPEN,
): Promise<Held> {
  const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port), localAddress });
  sockets.push(socket);
  socket.on('error', () => {});
  let closed = false;
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk));
  const done = new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve())));
  await new Promise<void>((resolve) => {
    socket.once('connect', resolve);
    socket.once('close', resolve);
  });
  if (!closed) socket.write(start);
  return { socket, closed: done, isClosed: () => closed, answer: () => answer };
}
