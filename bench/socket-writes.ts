// Calls `onWrite` with each socket of this process as it writes: a write is what reaches the socket's
// handle, one chunk (_write) or what a cork held (_writev), so one round trip out. Benches that count
// or record the writes a run makes to Valkey (explorer-profile.ts, floor-capture.ts) tap them here.

import { Socket } from 'node:net';

type Internal = Record<'_write' | '_writev', (...args: unknown[]) => unknown>;

export function onSocketWrite(onWrite: (socket: Socket) => void): void {
  const socket = Socket.prototype as unknown as Internal;
  for (const name of ['_write', '_writev'] as const) {
    const original = socket[name];
    socket[name] = function (this: Socket, ...args: unknown[]) {
      onWrite(this);
      return original.apply(this, args);
    };
  }
}
