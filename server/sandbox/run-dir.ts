// Where a process keeps the valkey-servers it starts, so none outlives it. Every server's directory (its
// data, config, and a pid file) lives in one run directory per process, `<tmp>/emq-sandbox-<pid>`.
// A killed process runs no exit handler, so two things stand in for it:
// - a watchdog (a small shell loop, detached, named after the run directory) polls this process's pid
//   every second; once it is gone, it SIGKILLs the servers its pid files name and removes the directory;
// - the next process that starts a server sweeps run directories whose process is gone (in case the
//   watchdog was killed too) the same way.
// A server is found by what it is, not by how its command line begins (Valkey 9.1 runs by its absolute
// path in the build cache): its pid file holds its pid, and `valkey.start` beside it its start time and
// executable; a pid is killed only while /proc still gives it that start time (so a reused pid is never
// hit). The pid file stays one number, as an older site sweeping these directories reads it. The directory,
// pid files and all, is removed only once every server it names is confirmed gone.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processRuns } from './process-runs.ts';

const PREFIX = 'emq-sandbox-';
const PID_FILE = 'valkey.pid';
// Beside it, not in it: a site of an older version, sweeping, reads the pid file as one number.
const START_FILE = 'valkey.start';

/** What /proc says of a process: its start time (clock ticks after boot) and state, or null if gone. */
function procStat(pid: number): { start: string; state: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name sits in parentheses and may hold spaces: the fields after the last ')' are state (3rd)…
    // starttime (22nd).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, start: fields[19]! };
  } catch {
    return null;
  }
}

/** A process's name: the file it was started by (Debian's valkey-server is a link to valkey-check-rdb). */
function procName(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  } catch {
    return null;
  }
}

/** The executable a process runs, as /proc links it ("(deleted)" dropped: a rebuilt binary). */
function executableOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, '');
  } catch {
    return null;
  }
}

interface Recorded {
  pid: number;
  /**
   * Its start time: with the pid, the process itself (a reused pid never has the same one). Empty in a
   * pid file of an older site, which wrote the pid alone.
   */
  start: string;
  /** Its executable as read at the start, for whoever reads the file; the start time decides. */
  exe: string;
}

function readRecord(dir: string): Recorded | null {
  try {
    const pid = Number(readFileSync(join(dir, PID_FILE), 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return null;
    let start = '';
    let exe = '';
    try {
      [start = '', exe = ''] = readFileSync(join(dir, START_FILE), 'utf8').trim().split('\n');
    } catch {
      // An older site's server: its pid alone.
    }
    return { pid, start, exe };
  } catch {
    return null;
  }
}

/**
 * Whether the recorded server still runs: the same pid, started at the same moment (a zombie is gone).
 * A pid file with no start time (an older site's) is believed while the pid runs a valkey-server.
 */
function stillRuns(server: Recorded): boolean {
  const stat = procStat(server.pid);
  if (stat === null || stat.state === 'Z') return false;
  if (server.start) return stat.start === server.start;
  return procName(server.pid) === 'valkey-server';
}

function recordsIn(dir: string): Recorded[] {
  if (!existsSync(dir)) return [];
  const found: Recorded[] = [];
  for (const entry of readdirSync(dir)) {
    const record = readRecord(join(dir, entry));
    if (record) found.push(record);
  }
  return found;
}

/** SIGKILLs what the records name while they still run, and waits (up to `ms`) until each is gone. */
function stopAll(records: Recorded[], ms = 3000): boolean {
  const deadline = Date.now() + ms;
  for (;;) {
    const running = records.filter(stillRuns);
    if (running.length === 0) return true;
    for (const server of running) {
      try {
        process.kill(server.pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    if (Date.now() > deadline) return false;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
}

/**
 * Stops the servers of every run directory whose process is gone, and removes the directory once they
 * are confirmed gone (else it stays, pid files and all, for the next sweep). Returns one line per
 * directory swept, for the log.
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
    const running = recordsIn(dir).filter(stillRuns);
    if (!stopAll(running)) {
      swept.push(`${dir}: process ${owner} is gone; some valkey-server it left would not stop, kept`);
      continue;
    }
    rmSync(dir, { recursive: true, force: true });
    swept.push(`${dir}: process ${owner} is gone; stopped ${running.length} valkey-server(s) it left`);
  }
  return swept;
}

/**
 * The shell loop that outlives this process by a second: it SIGKILLs every server a pid file names
 * whose /proc start time is still the recorded one, until none is left, and only then tidies.
 */
function watchdogScript(dir: string, parent: number): string {
  return [
    `while kill -0 ${parent} 2>/dev/null; do sleep 1; done`,
    'for round in 1 2 3 4 5 6 7 8 9 10; do',
    '  left=0',
    `  for f in "${dir}"/*/${PID_FILE}; do`,
    '    [ -f "$f" ] || continue',
    '    read -r pid < "$f"',
    `    start=$(head -n 1 "\${f%/*}/${START_FILE}" 2>/dev/null)`,
    '    stat=$(cat /proc/$pid/stat 2>/dev/null) || continue',
    '    set -- ${stat##*) }',
    '    [ "$1" = Z ] && continue',
    '    [ "${20}" = "$start" ] || continue',
    '    kill -9 "$pid" 2>/dev/null',
    '    left=1',
    '  done',
    '  [ $left = 0 ] && break',
    '  sleep 0.2',
    'done',
    // Kept (for the next start's sweep) while any server would not stop.
    `[ $left = 0 ] && rm -rf "${dir}"`,
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
    // A normal exit SIGKILLs its servers itself (valkey-process.ts); the watchdog, left running, confirms
    // they are gone a second later and removes the directory.
    return dir;
  })();
  return current;
}

/**
 * Records the server whose directory is `serverDir` (inside the run directory): its pid, its start time
 * and its executable, read from /proc once it runs.
 */
export async function recordServer(serverDir: string, pid: number): Promise<void> {
  const start = procStat(pid)?.start ?? '';
  const exe = executableOf(pid) ?? '';
  await writeFile(join(serverDir, START_FILE), `${start}\n${exe}\n`);
  await writeFile(join(serverDir, PID_FILE), `${pid}\n`);
}
