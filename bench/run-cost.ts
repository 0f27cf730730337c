// The CPU a run costs, read from /proc: each thread's run time (schedstat, in ns) of a process or of a
// whole process tree, split into Node and valkey-server; the load average printed beside every figure;
// and the site ÷ Valkey ratio of one cell. Shared by explorer-load.ts (the site) and ratio-floor.ts
// (the floor), so both are measured alike.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { processTreeOf } from '../tests/support/processes.ts';

/**
 * CPU ms so far of one process: the run time of each of its threads (/proc/<pid>/task/<tid>/schedstat, in
 * ns), as the ticks of /proc/<pid>/stat are 10 ms, a tenth of a cell's Valkey CPU at 300 runs. The
 * threads of Node and valkey-server live as long as their process, so none is lost between readings.
 */
export function threadsCpuMs(pid: number): number {
  let ns = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    // ended while read
  }
  return ns / 1e6;
}

/** CPU ms so far of `root` and every process under it, split into Node and valkey-server. */
export function cpuBelow(root: number): { node: number; valkey: number } | null {
  if (!existsSync('/proc')) return null; // not Linux
  const total = { node: 0, valkey: 0 };
  for (const p of processTreeOf(root))
    total[p.comm.startsWith('valkey') ? 'valkey' : 'node'] += threadsCpuMs(p.pid);
  return total;
}

/** The machine's load average over 1, 5 and 15 minutes, as uptime prints it. */
export function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
}

/** The site's and Valkey's CPU per run of one cell. */
export interface Cost {
  site: number;
  valkey: number;
  load: string;
}

export const ratio = (cost: Cost) => (cost.valkey > 0 ? cost.site / cost.valkey : NaN);
