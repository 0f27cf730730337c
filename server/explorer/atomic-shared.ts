// One Valkey 9 cluster per site: with WORKERS=n the primary starts it (once, when a worker first asks)
// and hands each worker where it answers and how to sign in, over the cluster module's own channel, as
// it hands them the Valkey 8 sandbox's address at their start. A worker killed then leaves no server
// behind: the primary's watchdog stops the cluster with the site.

import nodeCluster, { type Worker } from 'node:cluster';
import type { AtomicCluster } from './atomic-runtime.ts';

const ASK = 'emq:atomic-cluster?';
/** Asked by a worker's status: the cluster if it runs, never started by the asking. */
const ASK_IF_UP = 'emq:atomic-cluster-if-up?';
const ANSWER = 'emq:atomic-cluster';

interface Answer {
  type: typeof ANSWER;
  id: number;
  cluster?: AtomicCluster;
  error?: string;
}

/** How long a worker waits for its primary to start the cluster (three servers and their join). */
const PRIMARY_ANSWER_MS = 60_000;

let asked = 0;

/** How long a worker's status waits for its primary to say whether the cluster runs. */
const PRIMARY_IF_UP_MS = 1000;

/** In a worker: the primary's Valkey 9 cluster, started by the primary if it was not yet. */
export function atomicClusterOfPrimary(): Promise<AtomicCluster> {
  return askPrimary(ASK, PRIMARY_ANSWER_MS);
}

/**
 * In a worker: the primary's Valkey 9 cluster if it runs now, else null (nothing is started): what a
 * worker that has run nothing atomic yet reads its status from, so every worker says the same.
 */
export function atomicClusterIfUp(): Promise<AtomicCluster | null> {
  return askPrimary(ASK_IF_UP, PRIMARY_IF_UP_MS).catch(() => null);
}

function askPrimary(type: string, waitMs: number): Promise<AtomicCluster> {
  const id = (asked += 1);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off('message', listen);
      reject(new Error(`the site's primary process did not hand over its Valkey 9 cluster`));
    }, waitMs);
    const listen = (message: Answer) => {
      if (message?.type !== ANSWER || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', listen);
      if (message.cluster) resolve(message.cluster);
      else reject(new Error(message.error ?? 'the primary could not start the Valkey 9 cluster'));
    };
    process.on('message', listen);
    process.send!({ type, id });
  });
}

/**
 * In the primary: answers `worker`'s requests for the cluster with what `provide` starts (once), and
 * its status's with what `running` says runs now (null: nothing).
 */
export function shareAtomicCluster(
  worker: Worker,
  provide: () => Promise<AtomicCluster>,
  running: () => Promise<AtomicCluster | null>,
): void {
  if (!nodeCluster.isPrimary) return;
  worker.on('message', (message: { type?: string; id?: number }) => {
    if (message?.type !== ASK && message?.type !== ASK_IF_UP) return;
    const answer = (body: Partial<Answer>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...body });
    };
    (message.type === ASK ? provide() : running()).then(
      (cluster) => answer(cluster ? { cluster } : { error: 'the Valkey 9 cluster is not running' }),
      (error: Error) => answer({ error: error.message }),
    );
  });
}
