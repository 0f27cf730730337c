// Runs that share the cluster's one keyspace take turns: readers type exact keys (`emq:{orders}:…`), so
// two runs on one slot would see each other's jobs. A run holds its slot's lock — within this process
// a promise chain, across processes a short-lived key set with NX and a deadline — and cleans up after
// itself before it lets go. A lock key left by a dead process expires on its own; a live holder renews
// it (compare-and-expire with its token) every third of its lifetime, so a long run (a slot migration)
// never outlives its lock, and says so when the renewal finds the key gone. A token names its holder
// (host and pid), so a taker on the same host whose holder is dead — a site killed mid-migration — takes
// the turn over at once instead of waiting out the key's lifetime. The reshards' turn is a line instead
// (`line`, turn-line.ts): taken in arrival order by every process, not by whoever polls first.

import { join } from 'node:path';
import type { Cluster } from 'iovalkey';
import { runScript } from '../executors/scripted.ts';
import { luaScript } from '../lua/lua-file.ts';
import { projectRoot } from '../project-root.ts';
import { runDeadline } from '../run-deadline.ts';
import { TURN_WAIT_MS } from '../settings/bounds.ts';
import { lineKeys, TurnLines } from './turn-line.ts';
import { holderDead, holderToken, LockBusyError, whileRenewed, type Turn } from './turn.ts';

export { LockBusyError, type Turn };

// Compare-and-delete and compare-and-expire on the holder's token: server/cluster/lua/lock-*.lua.
const LOCK_LUA = join(projectRoot(), 'server', 'cluster', 'lua');
const RELEASE = luaScript(LOCK_LUA, 'lock-release-1.lua');
const RENEW = luaScript(LOCK_LUA, 'lock-renew-1.lua');

export class RunLocks {
  private readonly admin: Cluster;
  private readonly ttlMs: number;
  private readonly local = new Map<string, Promise<void>>();
  /** Turns taken in arrival order across processes (the reshards'): turn-line.ts. */
  readonly line: TurnLines;

  /** `admin` is the cluster as the admin: the lock keys are never the reader's to see or touch. */
  constructor(admin: Cluster, ttlMs = 20_000) {
    this.admin = admin;
    this.ttlMs = ttlMs;
    this.line = new TurnLines(admin);
  }

  /** The lock key of a name; one hashtag keeps every lock on one slot. */
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
    // A run whose own deadline passes while it waits leaves the line: its turn would come after its
    // answer (run-deadline.ts).
    const run = runDeadline();
    // In this process: queue behind the run before us, so only one of ours polls the shared key.
    const previous = this.local.get(name) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = previous.then(() => mine);
    this.local.set(name, tail);
    let leave: (() => void) | undefined;
    try {
      await Promise.race([
        previous,
        new Promise((_, reject) => setTimeout(() => reject(new LockBusyError(name, waitMs)), waitMs).unref()),
        new Promise((_, reject) => {
          leave = () => reject(run!.reason);
          run?.addEventListener('abort', leave, { once: true });
        }),
      ]);
      if (leave) run?.removeEventListener('abort', leave);
      const token = await this.acquire(name, deadline, waitMs, run);
      const key = RunLocks.key(name);
      const renew = async () => (await runScript(this.admin, RENEW, [key], [token, this.ttlMs])) === 1;
      try {
        return await whileRenewed(renew, this.ttlMs / 3, work, run);
      } finally {
        await runScript(this.admin, RELEASE, [key], [token]).catch(() => {});
      }
    } finally {
      if (leave) run?.removeEventListener('abort', leave);
      done();
      if (this.local.get(name) === tail) this.local.delete(name);
    }
  }

  private async acquire(name: string, deadline: number, waitMs: number, run?: AbortSignal): Promise<string> {
    const token = holderToken();
    const key = RunLocks.key(name);
    for (let delay = 5, first = true; ; delay = Math.min(delay * 2, 50), first = false) {
      run?.throwIfAborted();
      const set = await this.admin.set(key, token, 'PX', this.ttlMs, 'NX');
      if (set === 'OK') return token;
      // Once per wait: a holder on this host whose process is gone left the key; free it (only that value).
      if (first && (await this.freeIfHolderDead(key))) {
        delay = 2.5; // the next try at once (the loop doubles it to 5 ms)
        continue;
      }
      if (Date.now() + delay > deadline) throw new LockBusyError(name, waitMs);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** Deletes `key` when its token names this host and a pid that no longer runs. */
  private async freeIfHolderDead(key: string): Promise<boolean> {
    const holder = await this.admin.get(key);
    if (!holder || !holderDead(holder)) return false;
    return (await runScript(this.admin, RELEASE, [key], [holder!])) === 1;
  }
}
