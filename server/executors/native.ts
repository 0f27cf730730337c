// The native executor: the same call, sent as the module's EMQ.<VERB> instead of EVALSHA <sha>.

import { verdicts, type Client, type Executor } from './executor.ts';
import { routedCommand, sendRouted, type CommandSink } from './routed.ts';
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
      const args = [call.keys.length, ...call.keys, ...call.args];
      return (await sendRouted(this.client, commandFor(call), call.keys, args)) as Reply;
    } catch (error) {
      throw WireError.from(error);
    }
  }

  async runMany(calls: readonly Call[]): Promise<Array<Reply | WireError>> {
    const pipeline = this.client.pipeline();
    for (const call of calls) {
      const args = [call.keys.length, ...call.keys, ...call.args];
      (pipeline as unknown as CommandSink).sendCommand(routedCommand(commandFor(call), call.keys, args));
    }
    return verdicts(await pipeline.exec());
  }
}

function commandFor(call: Call): string {
  const command = TRANSITIONS[call.transition].command;
  if (!command) throw new Error(`${call.transition} has no native command; run it on the scripted executor`);
  return command;
}
