// What the scripted and the native executor share: each sends a call as one routed command on its
// client, alone or in a pipeline, and answers an error reply as a WireError. They differ in how they
// spell the command (EVALSHA <sha> or EMQ.<VERB>), and the scripted one loads its script on NOSCRIPT.

import type { Command } from 'iovalkey';
import { verdicts, type Client, type Executor } from './executor.ts';
import { send } from './routed.ts';
import type { Call, Reply } from '../contract/transitions.ts';
import { WireError } from './wire-error.ts';

export abstract class CommandExecutor implements Executor {
  abstract readonly kind: Executor['kind'];
  protected readonly client: Client;

  constructor(client: Client) {
    this.client = client;
  }

  /** The call as this executor's command. */
  protected abstract command(call: Call): Command;

  /** Sends one call; an error reply is thrown as a WireError. */
  async run(call: Call): Promise<Reply> {
    try {
      return (await send(this.client, this.command(call))) as Reply;
    } catch (error) {
      throw WireError.from(error);
    }
  }

  /** Sends the calls in one pipeline: one verdict per call, in order. */
  async runMany(calls: readonly Call[]): Promise<Array<Reply | WireError>> {
    const pipeline = this.client.pipeline();
    for (const call of calls) void send(pipeline, this.command(call));
    return verdicts(await pipeline.exec());
  }
}
