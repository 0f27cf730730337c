// The native executor: the same call, sent as the module's EMQ.<VERB> instead of EVALSHA <sha>.

import type { Command } from 'iovalkey';
import { CommandExecutor } from './command-executor.ts';
import { callCommand } from './routed.ts';
import { TRANSITIONS, type Call } from '../contract/transitions.ts';

export class NativeExecutor extends CommandExecutor {
  readonly kind = 'native';

  protected command(call: Call): Command {
    const command = TRANSITIONS[call.transition].command;
    if (!command)
      throw new Error(`${call.transition} has no native command; run it on the scripted executor`);
    return callCommand(command, call);
  }
}
