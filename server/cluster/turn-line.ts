// A turn taken in arrival order, by every process on every host: a line kept in Valkey. A taker draws
// the next ticket (a number, server-side), and asks "am I first?" — one short script that also renews
// its ticket's lease — until it is; the one who leaves wakes the waiters of this process at once, and
// those of other processes see it at their next look (a few tens of ms). The line is served in rounds
// (line-join-3.lua): a reader's ticket joins the round under way unless that reader already had one in
// it, so a reader who keeps a ticket in line all the time takes one turn a round, and one who asks now
// and then waits only for the rest of the round, not behind everyone who never leaves. A ticket whose
// process died or froze expires with its lease, and a dead holder on this host is freed at once. A line
// whose work ahead, at the pace of its last turns, is longer than the taker may wait refuses it at once
// (a ticket served after its run's answer helps nobody); so does a run whose deadline passes meanwhile.

import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { Cluster } from 'iovalkey';
import { runScript } from '../executors/scripted.ts';
import { catalogueText } from '../contract/catalogue/catalogue-text.ts';
import { BusyError } from '../catalogue/busy.ts';
import { luaScript, type Script } from '../lua/lua-file.ts';
import { projectRoot } from '../project-root.ts';
import { runDeadline } from '../run-deadline.ts';
import { lineAhead, lineWaiting, lineWaitSeconds } from '../observe/metrics.ts';
import { runCaller } from '../run-caller.ts';
import { LINE_LEASE_MS, LINE_LOOK_MS, LINE_TURN_GUESS_MS, TURN_WAIT_MS } from '../settings/bounds.ts';
import { holderDead, holderToken, LockBusyError, whileRenewed, type Turn } from './turn.ts';

const LUA = join(projectRoot(), 'server', 'cluster', 'lua');
const JOIN = luaScript(LUA, 'line-join-3.lua');
const WAIT = luaScript(LUA, 'line-wait-3.lua');
const LEAVE = luaScript(LUA, 'line-leave-3.lua');

/** The line already holds more work than this run may wait for: refused before it takes a ticket. */
export class LineFullError extends BusyError {
  constructor(name: string, ahead: number, expectedMs: number, waitMs: number) {
    super(catalogueText('BUSY', { lock: name, ahead, ms: Math.round(expectedMs), wait: waitMs }, 'line'));
    this.name = 'LineFullError';
  }
}

/** The keys of a line (one hashtag: every line and lock of the sandbox on one slot). */
export function lineKeys(name: string): [line: string, alive: string, meta: string] {
  const line = `{sandbox}:line:${name}`;
  return [line, `${line}:alive`, `${line}:meta`];
}

const sleep = (ms: number, wake: EventEmitter, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      wake.off('left', done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    wake.once('left', done);
    signal?.addEventListener('abort', done, { once: true });
  });

export class TurnLines {
  private readonly admin: Cluster;
  private readonly leaseMs: number;
  /** Told when a ticket of this process leaves a line: its waiters look at once. */
  private readonly wake = new EventEmitter().setMaxListeners(0);

  /** `admin` is the cluster as the admin: the line's keys are never the reader's to see or touch. */
  constructor(admin: Cluster, leaseMs = LINE_LEASE_MS) {
    this.admin = admin;
    this.leaseMs = leaseMs;
  }

  /** Whether anyone (this process or another) is in the line `name`, holding its turn or waiting. */
  async busy(name: string): Promise<boolean> {
    return (await this.admin.exists(lineKeys(name)[0])) === 1;
  }

  /**
   * Runs `work` in the turn of the line `name`, once every ticket before this one has left (drawn
   * before it in its round, or of an earlier round; the reader is the run's caller, run-caller.ts);
   * refused at once when the line ahead would take longer than `waitMs` at its pace (LineFullError),
   * and told busy when it did wait that long (LockBusyError).
   */
  async with<T>(
    name: string,
    work: (turn: Turn) => Promise<T>,
    waitMs = TURN_WAIT_MS,
    guessMs = LINE_TURN_GUESS_MS,
  ): Promise<T> {
    const run = runDeadline();
    run?.throwIfAborted();
    const keys = lineKeys(name);
    const token = holderToken();
    const eval3 = (script: Script, ...args: Array<string | number>) =>
      runScript(this.admin, script, keys, args);
    const deadline = Date.now() + waitMs;
    const reader = runCaller() ?? '';
    const joined = (await eval3(JOIN, token, this.leaseMs, waitMs, guessMs, reader)) as number[];
    lineAhead.observe({ line: name }, joined[joined[0] === -1 ? 1 : 0]!);
    if (joined[0] === -1) throw new LineFullError(name, joined[1]!, joined[2]!, waitMs);
    let startedAt = 0;
    const joinedAt = Date.now();
    lineWaiting.inc({ line: name });
    try {
      await this.waitFirst(name, eval3, token, deadline, waitMs, run).finally(() => {
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

  /** Looks until this ticket is first: at once when a ticket of ours leaves, else every LINE_LOOK_MS. */
  private async waitFirst(
    name: string,
    eval3: (script: Script, ...args: Array<string | number>) => Promise<unknown>,
    token: string,
    deadline: number,
    waitMs: number,
    run?: AbortSignal,
  ): Promise<void> {
    let checked = '';
    for (;;) {
      run?.throwIfAborted();
      const [place, first] = (await eval3(WAIT, token, this.leaseMs)) as [number, string?];
      if (place === 0) return;
      // Our ticket expired while we waited (this process stalled past its lease): its place is gone.
      if (place === -1) throw new LockBusyError(name, waitMs);
      if (first && first !== checked) {
        checked = first;
        if (holderDead(first)) {
          await eval3(LEAVE, first, 0);
          continue;
        }
      }
      if (Date.now() >= deadline) throw new LockBusyError(name, waitMs);
      // Further back, a look less often: the line moves one ticket per turn.
      await sleep(Math.min(LINE_LOOK_MS * Math.min(place, 8), deadline - Date.now()), this.wake, run);
    }
  }
}
