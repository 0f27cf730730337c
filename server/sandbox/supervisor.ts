// Keeps a sandbox node up: when its valkey-server dies unexpectedly, it is started again on the same
// port with the same settings (and users), so clients reconnect by themselves and no one has to step in.
// Whoever needs to set the empty server up again (the explorer user, the scripts) does it on its own
// admin connection's `ready`, which also covers servers this process did not start.

import { once } from 'node:events';
import { logLimited } from '../log.ts';
import { startValkeyNode, type ValkeyNode, type ValkeyNodeOptions } from './valkey-process.ts';
import { RESTART_FIRST_MS, RESTART_MOST_MS } from '../settings/bounds.ts';

/** How long a dead server's last words are waited for after its exit. */
const LAST_WORDS_WAIT_MS = 500;

export interface SupervisedNode {
  readonly url: string;
  readonly port: number;
  /** The running process, or null while it is being restarted (tests kill it through this). */
  current(): ValkeyNode | null;
  stop(): Promise<void>;
}

export async function superviseValkeyNode(options: ValkeyNodeOptions = {}): Promise<SupervisedNode> {
  let node: ValkeyNode | null = await startValkeyNode(options);
  const { url, port } = node;
  let stopping = false;

  const watch = (watched: ValkeyNode) => {
    watched.process.once('exit', () => {
      if (stopping) return;
      node = null;
      void restart(watched);
    });
  };

  const restart = async (dead: ValkeyNode) => {
    await dead.stop();
    // Its last words may still be in the pipe when 'exit' comes: they are all read by 'close'.
    const { stdout, stderr } = dead.process;
    if (!stdout?.closed || !stderr?.closed) {
      const bound = { signal: AbortSignal.timeout(LAST_WORDS_WAIT_MS) };
      await once(dead.process, 'close', bound).catch(() => {});
    }
    // One line for the operator, with the server's last words (a crash report, an out-of-memory).
    const ended = dead.process.signalCode ?? `exit code ${dead.process.exitCode}`;
    const lastLines = dead.output().trim().split('\n').slice(-3).join('\n');
    logLimited(
      'sandbox server ended',
      `valkey-server on port ${port} ended (${ended}); starting it again`,
      lastLines,
    );
    // A pause before the first attempt: clients see the outage (and fail fast) instead of racing a
    // half-set-up server whose accounts and scripts are still being installed.
    for (let delay = RESTART_FIRST_MS; !stopping; delay = Math.min(delay * 2, RESTART_MOST_MS)) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        const fresh = await startValkeyNode({ ...options, port });
        if (stopping) return void (await fresh.stop());
        node = fresh;
        watch(fresh);
        return;
      } catch {
        // The port may still be held by the dying process; try again shortly.
      }
    }
  };

  watch(node);
  return {
    url,
    port,
    current: () => node,
    stop: async () => {
      stopping = true;
      await node?.stop();
    },
  };
}
