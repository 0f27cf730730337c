// The native executor: the same call, sent as the module's EMQ.<VERB> instead of EVALSHA <sha>.

import { verdicts, type Client, type Executor } from './executor.ts';
import { callCommand, send } from './routed.ts';
import { TRANSITIONS, type Call, type Reply } from './transitions.ts';
import { WireError } from './wire-error.ts';

export class NativeExecutor implements Executor {
  readonly kind = 'native';
  private readonly client: Client;

  constructor(client: Client) {
    this.client = client;
  }

  async run(call: Call): Promise<Reply> {
    try {
      return (await send(this.client, callCommand(commandFor(call), call))) as Reply;
    } catch (error) {
      throw WireError.from(error);
    }
  }

  async runMany(calls: readonly Call[]): Promise<Array<Reply | WireError>> {
    const pipeline = this.client.pipeline();
    for (const call of calls) void send(pipeline, callCommand(commandFor(call), call));
    return verdicts(await pipeline.exec());
  }
}

function commandFor(call: Call): string {
  const command = TRANSITIONS[call.transition].command;
  if (!command) throw new Error(`${call.transition} has no native command; run it on the scripted executor`);
  return command;
}
