// Keeps a sandbox node up: when its valkey-server dies unexpectedly, it is started again on the same
// port, so clients reconnect by themselves and no one has to step in.

import { startValkeyNode, type ValkeyNode, type ValkeyNodeOptions } from './valkey-process.ts';

export interface SupervisedNode {
  readonly url: string;
  readonly port: number;
  /** The running process, or null while it is being restarted. */
  current(): ValkeyNode | null;
  /** Called after every restart, e.g. to set the ACL user up again on the empty server. */
  onRestart(listener: () => void): void;
  stop(): Promise<void>;
}

export async function superviseValkeyNode(options: ValkeyNodeOptions = {}): Promise<SupervisedNode> {
  let node: ValkeyNode | null = await startValkeyNode(options);
  const { url, port } = node;
  const listeners: Array<() => void> = [];
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
    for (let delay = 100; !stopping; delay = Math.min(delay * 2, 2000)) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        const fresh = await startValkeyNode({ ...options, port });
        if (stopping) return void (await fresh.stop());
        node = fresh;
        watch(fresh);
        for (const listener of listeners) listener();
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
    onRestart: (listener) => void listeners.push(listener),
    stop: async () => {
      stopping = true;
      await node?.stop();
    },
  };
}
