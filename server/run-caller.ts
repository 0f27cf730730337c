// Who a run is for: the reader's address as the front read it (server/front/peer.ts, TRUST_PROXY
// included), known to everything the run calls without being handed down, as its deadline is
// (run-deadline.ts). What is shared per reader — one reshard queued or running for each — reads it here.
// Undefined outside a run, and for runs no reader asked for over HTTP (the server island's).

import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<string>();

/** The address of the reader this run is for, or undefined. */
export function runCaller(): string | undefined {
  return current.getStore();
}

/** `work` as a run for the reader at `address` (none: as it is). */
export function asCaller<T>(address: string | undefined, work: () => T): T {
  return address === undefined ? work() : current.run(address, work);
}
