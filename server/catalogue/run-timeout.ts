// The one error of a run past its deadline, whoever ends it (the keyspace pool at the run's deadline, or
// the API's own bound a little later, for runs that lease nothing). Its text is the catalogue's TIMEOUT
// row for the kind of run it ends, so it says what really happened to what that run held.

import { catalogueText } from '../contract/catalogue/catalogue-text.ts';
import type { VariantOf } from '../contract/catalogue/error-codes.ts';

/**
 * What a run holds, for what its TIMEOUT says: `keyspace` (the pool ended it and flushed its
 * keyspaces), `leased` (the API's bound, for a run that leases keyspaces), `queue` (a run that writes
 * its queue on the cluster), `reads` (one that only reads the cluster), `reshard`, or `run`.
 */
export type RunKind = VariantOf<'TIMEOUT'>;

export class RunTimeoutError extends Error {
  constructor(ms: number, kind: RunKind = 'keyspace') {
    super(catalogueText('TIMEOUT', { seconds: ms / 1000 }, kind));
    this.name = 'RunTimeoutError';
  }
}
