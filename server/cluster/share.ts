// With WORKERS=n a site has one of each set of servers, the primary's: a worker asks it where they answer
// over the cluster module's channel (the 9.1 cluster may start long after a worker, so no fork-time
// environment could carry it), and a worker killed leaves no server behind.

import nodeCluster, { type Worker } from 'node:cluster';

const ASK = 'emq:servers?';
const ANSWER = 'emq:servers';

/** What the primary shares under one name: started on `get()` if need be; `ifUp()` never starts it. */
export interface Shared<T> {
  get(): Promise<T>;
  ifUp(): Promise<T | null>;
}

type Question = { type: typeof ASK; id: number; name: string; ifUp: boolean };
type Answer<T> = { type: typeof ANSWER; id: number; found?: T; error?: string };

let asked = 0;

/** In a worker: what its primary shares as `name` (`ifUp`: only if it runs now, else null). */
export function fromPrimary<T>(name: string, waitMs: number, ifUp = false): Promise<T | null> {
  const id = (asked += 1);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off('message', listen);
      reject(new Error(`the site's primary process did not hand over its ${name}`));
    }, waitMs);
    const listen = (message: Answer<T>) => {
      if (message?.type !== ANSWER || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', listen);
      if (message.found !== undefined) resolve(message.found);
      else if (ifUp && !message.error) resolve(null);
      else reject(new Error(message.error ?? `the primary could not start its ${name}`));
    };
    process.on('message', listen);
    process.send!({ type: ASK, id, name, ifUp } satisfies Question);
  });
}

/** In the primary: answers `worker`'s questions with what `shared` holds under each name. */
export function shareWith(worker: Worker, shared: Record<string, Shared<unknown>>): void {
  if (!nodeCluster.isPrimary) return;
  worker.on('message', (message: Question) => {
    const what = message?.type === ASK ? shared[message.name] : undefined;
    if (!what) return;
    const answer = (body: Partial<Answer<unknown>>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...body });
    };
    (message.ifUp ? what.ifUp() : what.get()).then(
      (found) => answer(found === null ? {} : { found }),
      (error: Error) => answer({ error: error.message }),
    );
  });
}
