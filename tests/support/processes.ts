// The processes a test watches: whether one still runs, the valkey-servers a site started (its
// children, told apart by their command lines), and a whole process tree read from /proc, with the CPU
// each process used (bench/ reads it).

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Whether a process still runs: the server's own check (server/sandbox/process-runs.ts). */
export { processRuns as alive } from '../../server/sandbox/process-runs.ts';

/** The children of `parent` whose command line `matches`. */
function childrenOf(parent: number, matches: (cmdline: string) => boolean): number[] {
  let out = '';
  try {
    out = execFileSync('pgrep', ['-P', String(parent)], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return out
    .trim()
    .split('\n')
    .map(Number)
    .filter((pid) => {
      try {
        return matches(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    });
}

/** The valkey-servers `parent` started (its children). */
export function serversOf(parent: number): number[] {
  return childrenOf(parent, (cmdline) => cmdline.startsWith('valkey-server'));
}

/** A site's worker processes: its primary's children running serve.ts. */
export function workersOf(primary: number): number[] {
  return childrenOf(primary, (cmdline) => cmdline.includes('serve.ts'));
}

export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** The executable's short name (/proc/<pid>/stat, at most 15 characters). */
  comm: string;
  /** The command line, its arguments joined by spaces. */
  cmdline: string;
  /** The CPU it has used so far, user and system, in ms. */
  cpuMs: number;
}

/** Every process on the machine, from /proc (one that ends while it is read is left out). */
export function processTable(): ProcessEntry[] {
  const out: ProcessEntry[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The name sits in parentheses and may itself hold spaces or parentheses: cut at the last ')'.
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      // After the name: state, ppid, …, utime (12th), stime (13th), in clock ticks of 10 ms.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpuMs = (Number(fields[11]) + Number(fields[12])) * 10;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      out.push({ pid: Number(entry), ppid: Number(fields[1]), comm, cmdline, cpuMs });
    } catch {
      // ended while read
    }
  }
  return out;
}

/** `root` and every process below it, by parent links. */
export function processTreeOf(root: number, all: ProcessEntry[] = processTable()): ProcessEntry[] {
  const pids = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all)
      if (pids.has(p.ppid) && !pids.has(p.pid)) {
        pids.add(p.pid);
        grew = true;
      }
  }
  return all.filter((p) => pids.has(p.pid));
}
