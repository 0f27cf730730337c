// Per experiment run: the writes its Valkey connections made (each a round trip out, pipelines counted
// once) and the commands each server ran (INFO commandstats after CONFIG RESETSTAT, a script's own
// calls included), on the standalone node and the cluster's nodes, over sequential runs. Counts, not
// timings: what a run costs before any load. Prints figures; asserts nothing.
// Run: node bench/count-commands.ts [runs]

import { Socket } from 'node:net';
import { Valkey } from 'iovalkey';
import { startSandbox } from '../server/sandbox/sandbox.ts';

const RUNS = Number(process.argv[2] ?? 50);

// Every socket in this process is a Valkey connection: its writes are the runs' round trips out.
let writes = 0;
const write = Socket.prototype.write;
Socket.prototype.write = function (this: Socket, ...args: unknown[]) {
  writes += 1;
  return (write as (...a: unknown[]) => boolean).apply(this, args);
} as typeof Socket.prototype.write;
const sandbox = await startSandbox({ databases: 32 });
process.env.VALKEY_URL = sandbox.standalone.url;
process.env.VALKEY_CLUSTER_URL = sandbox.cluster!.url;
process.env.EXPLORER_BURST = '100000';
const { answerExperiment } = await import('../server/experiments/http.ts');
const { explorerRuntime } = await import('../server/experiments/runtime.ts');

const WORKLOADS: Record<string, unknown> = {
  keys: { queue: 'orders' },
  slot: { queue: 'orders', other: 'fills' },
  layout: { verb: 'enqueue', queue: 'orders' },
  route: { queue: 'orders' },
  reserve: {},
  'two-executors': { steps: ['enqueue', 'claim', 'complete'] },
};
const nodes = [sandbox.standalone.url, ...sandbox.cluster!.url.split(',')].map((url) => new Valkey(url));
const run = (name: string) => {
  const bytes = Buffer.from(JSON.stringify(WORKLOADS[name]));
  return answerExperiment(
    { method: 'POST', contentType: 'application/json', readBody: async () => bytes },
    name,
  );
};
try {
  for (const name of Object.keys(WORKLOADS)) {
    await run(name);
    await Promise.all(nodes.map((node) => node.config('RESETSTAT')));
    const writesBefore = writes;
    for (let i = 0; i < RUNS; i++) {
      const answer = await run(name);
      if (answer.status !== 200) throw new Error(`${name}: ${JSON.stringify(answer.body)}`);
    }
    const written = (writes - writesBefore) / RUNS;
    const counts = new Map<string, number>();
    for (const [n, node] of nodes.entries()) {
      const info = String(await node.info('commandstats'));
      for (const [, command, calls] of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) {
        if (command === 'config' || command === 'info') continue;
        const where = n === 0 ? 'standalone' : 'cluster';
        counts.set(`${where}:${command}`, (counts.get(`${where}:${command}`) ?? 0) + Number(calls));
      }
    }
    const total = [...counts.values()].reduce((a, b) => a + b, 0) / RUNS;
    const list = [...counts]
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${(n / RUNS).toFixed(1)}`)
      .join(', ');
    console.log(
      `${name.padEnd(14)} ${written.toFixed(1).padStart(5)} writes to Valkey, ${total.toFixed(1).padStart(5)} commands run (script calls included): ${list}`,
    );
  }
} finally {
  await (await explorerRuntime()).close();
  for (const node of nodes) node.disconnect();
  await sandbox.stop();
}
