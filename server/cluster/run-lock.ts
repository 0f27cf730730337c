// Runs that share a cluster take turns across processes and hosts, as the admin (the keys are never the
// reader's), on one hashtag. A lock (`with`, a run's slot) is a key set with NX, one SET and one release
// a run; a line (`line`, the reshards') serves tickets in arrival order, in rounds (line-join-3.lua), so
// a reader always in line takes one turn a round. Either is renewed while held, and says so when lost; a
// token names its holder's host and pid, so a dead holder on the same host is passed over at once.

import { randomBytes } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Cluster } from 'iovalkey';
import { runScript } from '../executors/scripted.ts';
import { catalogueText } from '../contract/catalogue/catalogue-text.ts';
import { BusyError } from '../catalogue/busy.ts';
import { luaScript, type Script } from '../lua/lua-file.ts';
import { lineAhead, lineWaiting, lineWaitSeconds } from '../observe/metrics.ts';
import { projectRoot } from '../project-root.ts';
import { runCaller } from '../run-caller.ts';
import { runDeadline } from '../run-deadline.ts';
import { processRuns } from '../sandbox/process-runs.ts';
import { LINE_LEASE_MS, LINE_LOOK_MS, LINE_TURN_GUESS_MS, TURN_WAIT_MS } from '../settings/bounds.ts';

const LUA = join(projectRoot(), 'server', 'cluster', 'lua');
// Compare-and-delete and compare-and-expire on the holder's token.
const RELEASE = luaScript(LUA, 'lock-release-1.lua');
const RENEW = luaScript(LUA, 'lock-renew-1.lua');
const JOIN = luaScript(LUA, 'line-join-3.lua');
const WAIT = luaScript(LUA, 'line-wait-3.lua');
const LEAVE = luaScript(LUA, 'line-leave-3.lua');

export class LockBusyError extends BusyError {
  constructor(name: string, waitedMs: number) {
    super(catalogueText('BUSY', { lock: name, ms: waitedMs }, 'lock'));
    this.name = 'LockBusyError';
  }
}

/** The line already holds more work than this run may wait for: refused before it takes a ticket. */
export class LineFullError extends BusyError {
  constructor(name: string, ahead: number, expectedMs: number, waitMs: number) {
    super(catalogueText('BUSY', { lock: name, ahead, ms: Math.round(expectedMs), wait: waitMs }, 'line'));
    this.name = 'LineFullError';
  }
}

/** What a holder can ask of its turn while it runs. */
export interface Turn {
  /** False once a renewal found the turn gone or another's (it may no longer be ours alone). */
  held(): boolean;
}

// `work` in a turn kept by `renew` every `everyMs`: false means the turn is no longer ours alone; a
// renewal that fails (a node restarting) is tried again at the next, well before the turn expires.
async function whileRenewed<T>(
  renew: () => Promise<boolean>,
  everyMs: number,
  work: (turn: Turn) => Promise<T>,
  run?: AbortSignal,
): Promise<T> {
  let held = true;
  const renewal = setInterval(() => {
    renew().then(
      (still) => void (still || (held = false)),
      () => {}, // the next renewal tries again
    );
  }, everyMs).unref();
  try {
    run?.throwIfAborted();
    return await work({ held: () => held });
  } finally {
    clearInterval(renewal);
  }
}

/**
 * A holder's token: `<host>:<pid>:<random>`, so a taker on the same host can tell a dead holder. The host
 * is read once: `hostname()` is a system call, and a slot run takes a turn on every run.
 */
const HOLDER = `${hostname()}:${process.pid}:`;
const holderToken = () => HOLDER + randomBytes(12).toString('base64url');

function holderDead(token: string): boolean {
  const match = /^(.+):(\d+):[A-Za-z0-9_-]+$/.exec(token);
  return match !== null && match[1] === hostname() && !processRuns(Number(match[2]));
}

export function lineKeys(name: string): [line: string, alive: string, meta: string] {
  const line = `{sandbox}:line:${name}`;
  return [line, `${line}:alive`, `${line}:meta`];
}

export class RunLocks {
  private readonly admin: Cluster;
  private readonly ttlMs: number;
  private readonly local = new Map<string, Promise<void>>();
  readonly line: TurnLines;

  constructor(admin: Cluster, ttlMs = 20_000) {
    this.admin = admin;
    this.ttlMs = ttlMs;
    this.line = new TurnLines(admin);
  }

  static key(name: string): string {
    return `{sandbox}:lock:${name}`;
  }

  /** Whether some process (this one or another) holds the lock `name`, or is in its line, now. */
  async taken(name: string): Promise<boolean> {
    return (await this.admin.exists(RunLocks.key(name), lineKeys(name)[0])) > 0;
  }

  /** Runs `work` holding the lock `name`, waiting at most `waitMs` for it. */
  async with<T>(name: string, work: (turn: Turn) => Promise<T>, waitMs = TURN_WAIT_MS): Promise<T> {
    const deadline = Date.now() + waitMs;
    // A run whose own deadline passes while it waits leaves: its turn would come after its answer.
    const run = runDeadline();
    run?.throwIfAborted();
    // In this process: queue behind the run before us, so only one of ours polls the shared key.
    const previous = this.local.get(name);
    const mine = Promise.withResolvers<void>();
    const tail = (previous ?? Promise.resolve()).then(() => mine.promise);
    this.local.set(name, tail);
    try {
      // Nobody of ours ahead (the usual case): no timer nor signal to make for a wait that is not.
      if (previous) {
        const given = AbortSignal.any([AbortSignal.timeout(waitMs), ...(run ? [run] : [])]);
        await Promise.race([previous, once(given, 'abort')]);
        if (given.aborted) throw run?.aborted ? run.reason : new LockBusyError(name, waitMs);
      }
      // Then the shared key: set if absent, tried again 5 to 50 ms apart until `deadline`.
      const key = RunLocks.key(name);
      const token = holderToken();
      for (let delay = 5, first = true; ; delay = Math.min(delay * 2, 50), first = false) {
        run?.throwIfAborted();
        if ((await this.admin.set(key, token, 'PX', this.ttlMs, 'NX')) === 'OK') break;
        // Once per wait: a holder on this host whose process is gone left the key; free it (only that value).
        const holder = first ? await this.admin.get(key) : null;
        if (holder && holderDead(holder) && (await runScript(this.admin, RELEASE, [key], [holder])) === 1) {
          delay = 2.5; // the next try at once (the loop doubles it to 5 ms)
          continue;
        }
        if (Date.now() + delay > deadline) throw new LockBusyError(name, waitMs);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
      const renew = async () => (await runScript(this.admin, RENEW, [key], [token, this.ttlMs])) === 1;
      try {
        return await whileRenewed(renew, this.ttlMs / 3, work, run);
      } finally {
        await runScript(this.admin, RELEASE, [key], [token]).catch(() => {});
      }
    } finally {
      mine.resolve();
      if (this.local.get(name) === tail) this.local.delete(name);
    }
  }
}

export class TurnLines {
  private readonly admin: Cluster;
  private readonly leaseMs: number;
  /** Told when a ticket of this process leaves a line: its waiters look at once. */
  private readonly wake = new EventEmitter().setMaxListeners(0);

  constructor(admin: Cluster, leaseMs = LINE_LEASE_MS) {
    this.admin = admin;
    this.leaseMs = leaseMs;
  }

  /**
   * Runs `work` once every ticket before this one in line `name` has left; refused at once when the line
   * ahead would take longer than `waitMs` (LineFullError), busy when it did wait that long.
   */
  async with<T>(name: string, work: (turn: Turn) => Promise<T>, waitMs = TURN_WAIT_MS): Promise<T> {
    const run = runDeadline();
    run?.throwIfAborted();
    const keys = lineKeys(name);
    const token = holderToken();
    const eval3 = (script: Script, ...args: Array<string | number>) =>
      runScript(this.admin, script, keys, args);
    const deadline = Date.now() + waitMs;
    /** Looks until this ticket is first: at once when a ticket of ours leaves, else every LINE_LOOK_MS. */
    const waitFirst = async () => {
      let checked = '';
      for (;;) {
        run?.throwIfAborted();
        const [place, first] = (await eval3(WAIT, token, this.leaseMs)) as [number, string?];
        if (place === 0) return;
        // Our ticket expired while we waited (this process stalled past its lease): its place is gone.
        if (place === -1) throw new LockBusyError(name, waitMs);
        // A dead holder on this host is freed at once; one elsewhere expires with its lease.
        if (first && first !== checked) {
          checked = first;
          if (holderDead(first)) {
            await eval3(LEAVE, first, 0);
            continue;
          }
        }
        if (Date.now() >= deadline) throw new LockBusyError(name, waitMs);
        // Further back, a look less often: the line moves one ticket per turn.
        const look = AbortSignal.timeout(
          Math.max(0, Math.min(LINE_LOOK_MS * Math.min(place, 8), deadline - Date.now())),
        );
        await once(this.wake, 'left', { signal: run ? AbortSignal.any([look, run]) : look }).catch(() => {});
      }
    };
    const reader = runCaller() ?? '';
    const joined = (await eval3(JOIN, token, this.leaseMs, waitMs, LINE_TURN_GUESS_MS, reader)) as number[];
    lineAhead.observe({ line: name }, joined[joined[0] === -1 ? 1 : 0]!);
    if (joined[0] === -1) throw new LineFullError(name, joined[1]!, joined[2]!, waitMs);
    let startedAt = 0;
    const joinedAt = Date.now();
    lineWaiting.inc({ line: name });
    try {
      await waitFirst().finally(() => {
        lineWaiting.dec({ line: name });
        lineWaitSeconds.observe({ line: name }, (Date.now() - joinedAt) / 1000);
      });
      startedAt = Date.now();
      // The heartbeat: the same script that asked "am I first?" renews the ticket's lease.
      const renew = async () => ((await eval3(WAIT, token, this.leaseMs)) as unknown[])[0] === 0;
      return await whileRenewed(renew, this.leaseMs / 3, work, run);
    } finally {
      const took = startedAt === 0 ? 0 : Math.max(1, Date.now() - startedAt);
      await eval3(LEAVE, token, took).catch(() => {}); // else its lease ends it
      this.wake.emit('left');
    }
  }
}
