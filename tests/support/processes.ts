// The processes a test watches: whether one still runs, and the valkey-servers a site started (its
// children, told apart by their command lines).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The valkey-servers `parent` started (its children). */
export function serversOf(parent: number): number[] {
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
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('valkey-server');
      } catch {
        return false;
      }
    });
}
