// What a host needs of an executor: run one call, or many in one pipeline. The scripted executor and
// the native one both fit, so a host chooses per call.

import type { Cluster, Valkey } from 'iovalkey';
import type { Call, Reply } from '../contract/transitions.ts';
import { WireError } from './wire-error.ts';

/** A connection to one server, or a cluster client that routes each call to the node owning its keys. */
export type Client = Valkey | Cluster;

export interface Executor {
  readonly kind: 'scripted' | 'native';
  run(call: Call): Promise<Reply>;
  /** One pipeline, one verdict per call, in order; an error reply is returned, not thrown. */
  runMany(calls: readonly Call[]): Promise<Array<Reply | WireError>>;
}

/** A pipeline's [error, reply] pairs as verdicts: the reply, or the error reply as a WireError. */
export function verdicts(results: Array<[Error | null, unknown]> | null): Array<Reply | WireError> {
  return (results ?? []).map(([error, reply]) =>
    error ? (WireError.from(error) as WireError) : (reply as Reply),
  );
}
