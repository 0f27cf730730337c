// Where a process keeps the valkey-servers it starts, so none outlives it. Every server's directory (its
// data, config, and a pid file) lives in one run directory per process, `<tmp>/emq-sandbox-<pid>`.
// A killed process runs no exit handler, so two things stand in for it:
// - a watchdog (a small shell loop, detached, named after the run directory) polls this process's pid
//   every second; once it is gone, it SIGKILLs the servers its pid files name and removes the directory;
// - the next process that starts a server sweeps run directories whose process is gone (in case the
//   watchdog was killed too) the same way.
// A pid file is trusted only while /proc says that pid is a valkey-server, so a reused pid is never hit.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processRuns } from './process-runs.ts';

const PREFIX = 'emq-sandbox-';
const PID_FILE = 'valkey.pid';

function isValkeyServer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('valkey-server');
  } catch {
    return false;
  }
}

/** The valkey-servers a run directory's pid files name that are still running. */
export function serversIn(dir: string): number[] {
  const pids: number[] = [];
  if (!existsSync(dir)) return pids;
  for (const entry of readdirSync(dir)) {
    const file = join(dir, entry, PID_FILE);
    if (!existsSync(file)) continue;
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && isValkeyServer(pid)) pids.push(pid);
  }
  return pids;
}

/**
 * Stops the servers of every run directory whose process is gone, and removes the directory. Returns
 * one line per directory swept, for the log.
 */
export function sweepLeftovers(root = tmpdir()): string[] {
  const swept: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(root).filter((entry) => entry.startsWith(PREFIX));
  } catch {
    return swept;
  }
  for (const entry of entries) {
    const owner = Number(entry.slice(PREFIX.length));
    if (!Number.isInteger(owner) || owner === process.pid || processRuns(owner)) continue;
    const dir = join(root, entry);
    const servers = serversIn(dir);
    for (const pid of servers) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    rmSync(dir, { recursive: true, force: true });
    swept.push(`${dir}: process ${owner} is gone; stopped ${servers.length} valkey-server(s) it left`);
  }
  return swept;
}

/** The shell loop that outlives this process by a second: it stops what the pid files name, then tidies. */
function watchdogScript(dir: string, parent: number): string {
  return [
    `while kill -0 ${parent} 2>/dev/null; do sleep 1; done`,
    `for f in "${dir}"/*/${PID_FILE}; do`,
    '  [ -f "$f" ] || continue',
    '  pid=$(cat "$f")',
    '  case "$(tr "\\0" " " < /proc/$pid/cmdline 2>/dev/null)" in valkey-server*) kill -9 "$pid" ;; esac',
    'done',
    `rm -rf "${dir}"`,
  ].join('\n');
}

let current: Promise<string> | null = null;

/** This process's run directory: made (after a sweep of leftovers) and watched on first use. */
export function runDir(): Promise<string> {
  current ??= (async () => {
    for (const line of sweepLeftovers()) console.log(`sandbox: ${line}`);
    const dir = join(tmpdir(), `${PREFIX}${process.pid}`);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // `sh -c <script> <name>`: the name is $0, so the watchdog is findable by its run directory.
    const watchdog = spawn('sh', ['-c', watchdogScript(dir, process.pid), `emq-watchdog:${dir}`], {
      detached: true,
      stdio: 'ignore',
    });
    watchdog.unref();
    // A normal exit stops its servers itself (valkey-process.ts): the watchdog has nothing left to do.
    process.on('exit', () => {
      try {
        if (watchdog.pid) process.kill(watchdog.pid, 'SIGKILL');
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    });
    return dir;
  })();
  return current;
}

/** Records the pid of the server whose directory is `serverDir` (inside the run directory). */
export async function recordServer(serverDir: string, pid: number): Promise<void> {
  await writeFile(join(serverDir, PID_FILE), `${pid}\n`);
}
