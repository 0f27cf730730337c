// Whether a site's primary holds on to memory as workers and servers die: a site with WORKERS=2 and
// reshards of both modes running, a worker killed every 2.5 s (three a round) and a sandbox server each
// round; after every round the primary's heap is read after a full garbage collection, through its
// inspector (opened with SIGUSR1, on 127.0.0.1:9229: nothing else may hold that port). A heap that climbs
// round after round is something kept for ever; RSS alone cannot tell that from the allocator's own.
// Prints figures; asserts nothing.
// Run: node bench/primary-memory.ts [--rounds 9] [--reshards 1]   (--reshards 0: kills alone)

import { startSiteWithOwnSandbox } from '../scripts/site.ts';
import { sandboxUp } from '../tests/support/sandbox-up.ts';
import { serversOf, workersOf } from '../tests/support/processes.ts';
import { flagValues, positiveFlag } from './flags.ts';

const flags = flagValues({ rounds: '9', reshards: '1' });
const ROUNDS = Math.max(3, positiveFlag(flags, 'rounds'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The primary's inspector: one call at a time is all this needs. */
async function inspect(pid: number) {
  process.kill(pid, 'SIGUSR1');
  await sleep(1000);
  const [target] = (await (await fetch('http://127.0.0.1:9229/json/list')).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const socket = new WebSocket(target!.webSocketDebuggerUrl);
  await new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }));
  let id = 0;
  const waiting = new Map<number, (result: any) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data));
    waiting.get(message.id)?.(message.result);
  });
  const call = (method: string, params = {}) =>
    new Promise<any>((resolve) => {
      waiting.set(++id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    /** process.memoryUsage() after a full collection, in MB. */
    async memory(): Promise<Record<string, number>> {
      await call('HeapProfiler.collectGarbage');
      const expression = 'JSON.stringify(process.memoryUsage())';
      const { result } = await call('Runtime.evaluate', { expression, returnByValue: true });
      const usage = JSON.parse(result.value) as Record<string, number>;
      return Object.fromEntries(Object.entries(usage).map(([name, bytes]) => [name, bytes / 1e6]));
    },
    close: () => socket.close(),
  };
}

const site = await startSiteWithOwnSandbox({ WORKERS: '2', EXPLORER_BURST: '1000' });
let going = true;
const resharder = async (mode: string) => {
  while (going) {
    await fetch(`${site.url}/api/experiments/reshard`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ queue: `primary-memory-${mode}`, mode }),
    })
      .then((answer) => answer.arrayBuffer())
      .catch(() => {}); // the worker answering it was killed
    await sleep(500);
  }
};
try {
  await sandboxUp(site.url, 30_000);
  const primary = await inspect(site.pid);
  const line = (label: string, mb: Record<string, number>) =>
    console.log(
      `${label.padEnd(24)} heap used ${mb.heapUsed!.toFixed(2).padStart(6)}  heap ${mb.heapTotal!.toFixed(1).padStart(5)}  rss ${mb.rss!.toFixed(1).padStart(6)}  external ${mb.external!.toFixed(2)}`,
    );
  const first = await primary.memory();
  line('start', first);
  const reshards = flags.reshards === '1' ? [resharder('atomic'), resharder('keys')] : [];
  let second = first;
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (let k = 0; k < 3; k += 1) {
      const worker = workersOf(site.pid)[0];
      if (worker) process.kill(worker, 'SIGKILL');
      await sleep(2500);
    }
    const servers = serversOf(site.pid);
    const server = servers[round % servers.length];
    if (server) process.kill(server, 'SIGKILL');
    await sleep(4000);
    const now = await primary.memory();
    line(`round ${round} (${round * 3} workers)`, now);
    if (round === 2) second = now; // the first rounds still compile and size the heap
  }
  going = false;
  await Promise.all(reshards);
  const last = await primary.memory();
  line('reshards ended', last);
  const perKill = ((last.heapUsed! - second.heapUsed!) * 1000) / ((ROUNDS - 2) * 3);
  console.log(`\nheap used from round 2 to the end: ${perKill.toFixed(1)} KB per worker killed`);
  primary.close();
} finally {
  going = false;
  await site.close();
}
