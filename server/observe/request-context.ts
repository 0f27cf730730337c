// The request a line of the log belongs to: its id and, for a run, its experiment. Set by the front for
// each request (server/front/observed.ts), read by the access log and by every failure logged while the
// request is handled (server/log.ts), so a failure and the request it failed are found by one id.

import { AsyncLocalStorage } from 'node:async_hooks';
import { randomFillSync } from 'node:crypto';

export interface RequestContext {
  /** Short and unique enough to grep for: 12 random hex digits. */
  id: string;
  /** The experiment a run is of (`island` for a server island's render), or undefined. */
  experiment?: string;
}

const current = new AsyncLocalStorage<RequestContext>();

/** Random bytes drawn ahead for the ids: one draw per 1,024 requests, not one (and a getpid) each. */
const ID_BYTES = 6;
const drawn = Buffer.alloc(ID_BYTES * 1024);
let at = drawn.length;

export function newRequestId(): string {
  if (at === drawn.length) {
    randomFillSync(drawn);
    at = 0;
  }
  at += ID_BYTES;
  return drawn.toString('hex', at - ID_BYTES, at);
}

/** The request being handled, or undefined outside one. */
export function currentRequest(): RequestContext | undefined {
  return current.getStore();
}

/** `work` as the handling of `context`. */
export function withRequest<T>(context: RequestContext, work: () => T): T {
  return current.run(context, work);
}
