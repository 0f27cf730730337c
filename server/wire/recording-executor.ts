// An executor that keeps the wire of every call it runs: the commands its connection sent for that
// call (EVALSHA, or NOSCRIPT → SCRIPT LOAD → EVALSHA, or EMQ.<VERB>) with the server's proof of them.

import type { Valkey } from 'iovalkey';
import type { Executor } from '../executors/executor.ts';
import type { Call, Reply } from '../contract/transitions.ts';
import type { WireError } from '../executors/wire-error.ts';
import { wireDuring, type WireCommand, type WireProof } from './recorder.ts';

export interface CallWire {
  wire: WireCommand[];
  proof: WireProof;
}

export class RecordingExecutor implements Executor {
  readonly kind: Executor['kind'];
  /** One entry per run() or runMany(), in order. */
  readonly calls: CallWire[] = [];
  private readonly inner: Executor;
  private readonly client: Valkey;

  constructor(inner: Executor, client: Valkey) {
    this.inner = inner;
    this.client = client;
    this.kind = inner.kind;
  }

  run(call: Call): Promise<Reply> {
    return this.record(() => this.inner.run(call));
  }

  runMany(calls: readonly Call[]): Promise<Array<Reply | WireError>> {
    return this.record(() => this.inner.runMany(calls));
  }

  private async record<T>(act: () => Promise<T>): Promise<T> {
    let outcome = { error: new Error('not run') } as { value: T } | { error: unknown };
    const recorded = await wireDuring(this.client, async () => {
      try {
        outcome = { value: await act() };
      } catch (error) {
        outcome = { error };
      }
    });
    this.calls.push(recorded);
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }
}
