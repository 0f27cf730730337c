// The reshard's atomic mode at several queue sizes, on a Valkey 9.1 cluster of its own (scripts/valkey9.sh
// builds it): how long CLUSTER MIGRATESLOTS took until every node named the new owner, how many times
// the source served each probe before it answered MOVED, and the states CLUSTER GETSLOTMIGRATIONS
// showed. Figures only; the tests hold the behaviour. Run: node bench/atomic-reshard.ts [jobs…] (default 20000)

import { atomicRuntime, closeAtomicRuntime } from '../server/explorer/atomic-runtime.ts';
import { runAtomicReshard } from '../server/experiments/migration/atomic-mode.ts';
import { atomicGrantOf } from '../server/explorer/grants.ts';

const sizes = process.argv.slice(2).map(Number);
const runtime = await atomicRuntime();
console.log(`Valkey ${runtime.version}, three nodes, trafikey loaded and opted in`);
try {
  for (const jobs of sizes.length ? sizes : [20_000]) {
    const r = await runAtomicReshard(atomicGrantOf(runtime), { queue: 'orders', size: jobs });
    const moving = r.phases.find((phase) => phase.name === 'moving')!;
    const a = r.atomic!;
    console.log(
      `${jobs.toLocaleString('en')} jobs (${a.keys.before.toLocaleString('en')} keys): moved in ${a.moveMs} ms, back in ${a.backMs} ms; ` +
        `served before MOVED: ${moving.probes.map((p) => p.served).join(' / ')}; every key: ${a.keys.together}; ` +
        `states: ${a.states.map((s) => `${s.operation.toLowerCase()} ${s.state} @${s.atMs}`).join(', ')}`,
    );
  }
} finally {
  await closeAtomicRuntime();
}
