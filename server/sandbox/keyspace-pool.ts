// Readers share one sandbox server but never one keyspace: each run leases logical databases of its
// own, flushed before it is handed out and after it is given back, so nothing outlives a run.
//
// The leases live in Valkey itself (database 0, as the admin), never in one process's memory: a lease is
// a key set with NX and an expiry, so any number of site processes on one VALKEY_URL never hand one
// database to two runs, and a process that dies mid-run strands nothing — its leases expire after the
// run's deadline plus a bound, and the next run to take the database flushes it first. Both flushes
// happen inside the lease scripts, as the admin, in the same step as the take and the give.
//
// A run's connections are the explorer's, and the explorer may not SELECT: each is opened as the admin
// on its database (SELECT n) and then switched to the explorer with AUTH, so it keeps db=n and any
// SELECT it tries is refused with NOPERM.

import { hostname } from 'node:os';
import { createHash, randomBytes } from 'node:crypto';
import { Valkey } from 'iovalkey';
import { loadScriptsThrough } from '../executors/scripted.ts';
import { BusyError } from './busy.ts';

export interface Lease {
  db: number;
  /** The run's connection to its database, as the explorer. */
  client: Valkey;
}

export class PoolBusyError extends BusyError {
  constructor(waitedMs: number) {
    super(`every sandbox keyspace is in use; waited ${waitedMs} ms. Try again in a moment.`);
    this.name = 'PoolBusyError';
  }
}

export class LeaseDeadlineError extends Error {
  constructor(ms: number) {
    super(`the run took over ${ms / 1000} s and was ended; its keyspace was flushed`);
    this.name = 'RunTimeoutError';
  }
}

export interface PoolOptions {
  /** The explorer account a run's connections switch to. */
  explorer: { username: string; password: string };
  /** A run is ended (its commands cancelled, its keyspace flushed) after this long. */
  deadlineMs?: number;
  /** How long past the deadline a lease may outlive a run whose process died or whose flush failed. */
  graceMs?: number;
  /** First leased database (database 0 holds the lease keys). */
  first?: number;
}

/**
 * Takes `count` free leases at once, or none, and flushes their databases (a lease that expired with
 * its process was never flushed): KEYS are the lease keys, ARGV the token, ttl, count, then each key's
 * database. Scripts may SELECT; it changes only the script's own database.
 */
const TAKE = `local got = {}
for i = 1, #KEYS do
  if redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2], 'NX') then
    got[#got + 1] = i
    if #got == tonumber(ARGV[3]) then
      for _, j in ipairs(got) do
        redis.call('SELECT', ARGV[3 + j])
        redis.call('FLUSHDB')
      end
      return got
    end
  end
end
for _, i in ipairs(got) do redis.call('DEL', KEYS[i]) end
return {}`;

/**
 * Flushes each database and gives its lease back, only while the lease is still ours (it may have
 * expired and been taken since: that run's keyspace is not ours to flush). KEYS are the lease keys,
 * ARGV the token, then each key's database.
 */
const GIVE = `local given = 0
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('SELECT', ARGV[1 + i])
    redis.call('FLUSHDB')
    redis.call('SELECT', 0)
    given = given + redis.call('DEL', KEYS[i])
  end
end
return given`;

const TAKE_SHA = createHash('sha1').update(TAKE).digest('hex');
const GIVE_SHA = createHash('sha1').update(GIVE).digest('hex');

const reconnect = (times: number) => Math.min(times * 100, 1000);

/** Whose a lease is: this host and process (a random part, as pids are reused), then a run number. */
const PROCESS_TOKEN = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
let runs = 0;

/** A run waiting in line: woken to try at once (leases came back) or to start waiting as the first. */
interface Place {
  tryNow: boolean;
  wake(tryNow: boolean): void;
}

function wakeWith(place: Place, resolve: () => void): Place['wake'] {
  return (tryNow) => {
    place.tryNow = tryNow;
    resolve();
  };
}

/** How often the first run in line looks for leases other processes gave back. */
const POLL_MS = 50;

export function leaseKey(db: number): string {
  return `sandbox:lease:${db}`;
}

export class KeyspacePool {
  readonly deadlineMs: number;
  readonly ttlMs: number;
  private readonly adminUrl: string;
  private readonly explorer: PoolOptions['explorer'];
  private readonly dbs: number[];
  private readonly clients = new Map<number, Valkey>();
  /**
   * Lease scripts (which flush), as the admin; auto-pipelined: the takes and gives of concurrent runs
   * go out in one write.
   */
  private readonly admin: Valkey;
  /** Runs of this process waiting for leases, in the order they came. */
  private readonly line: Place[] = [];
  /** Leases given back by runs of this process since the first in line last tried. */
  private freed = 0;

  /** Databases first..first+size-1 of the server at `adminUrl` (a URL with the admin's credentials). */
  constructor(adminUrl: string, size: number, options: PoolOptions) {
    this.adminUrl = adminUrl;
    this.explorer = options.explorer;
    this.deadlineMs = options.deadlineMs ?? 15_000;
    this.ttlMs = this.deadlineMs + (options.graceMs ?? 5_000);
    const first = options.first ?? 1;
    this.dbs = Array.from({ length: size }, (_, i) => first + i);
    const adminOptions = {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      retryStrategy: reconnect,
    };
    this.admin = new Valkey(adminUrl, { ...adminOptions, lazyConnect: true, enableAutoPipelining: true });
    this.admin.on('error', () => {});
    this.admin.setMaxListeners(0); // every waiting run listens for its `ready`
  }

  get size(): number {
    return this.dbs.length;
  }

  /**
   * Runs `work` with `count` fresh databases of its own and flushes them afterwards whatever happens.
   * At the deadline the run's connections are cut (its commands cancelled) and its databases flushed.
   */
  async with<T>(count: number, work: (leases: Lease[]) => Promise<T>, waitMs = 5000): Promise<T> {
    if (count > this.size) throw new RangeError(`a run may lease at most ${this.size} keyspaces`);
    const token = `${PROCESS_TOKEN}:${(runs += 1)}`;
    const dbs = await this.acquire(count, token, waitMs);
    const leases: Lease[] = [];
    let timer: NodeJS.Timeout | undefined;
    try {
      for (const db of dbs) leases.push(await this.lease(db));
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          // Cut the run's connections: what it had in flight fails, and nothing more of it is sent.
          for (const lease of leases) lease.client.disconnect(true);
          reject(new LeaseDeadlineError(this.deadlineMs));
        }, this.deadlineMs);
      });
      return await Promise.race([work(leases), deadline]);
    } finally {
      clearTimeout(timer);
      try {
        await this.script(GIVE, GIVE_SHA, [dbs.length, ...dbs.map(leaseKey), token, ...dbs]);
        this.gaveBack(count);
      } catch {
        // Not flushed (a busy or restarting server): the leases stay taken until they expire, and
        // whoever takes one next flushes it first. A lease is never given back unflushed.
      }
    }
  }

  async close(): Promise<void> {
    const all = [...this.clients.values(), this.admin];
    await Promise.all(all.map((client) => client.quit().catch(() => client.disconnect())));
  }

  private async connected(client: Valkey): Promise<void> {
    await whenReady(client);
    if (client.status !== 'ready') throw new Error('Connection is closed (the sandbox is restarting)');
  }

  /**
   * Takes `count` leases. Runs of this process that find none free wait in line, first come first
   * served: the first in line tries again as soon as a run of this process gives leases back, and every
   * `POLL_MS` for those other processes give back. A run leaving the line (served, or out of time)
   * hands the head to the next, which tries at once only if leases came back meanwhile.
   */
  private async acquire(count: number, token: string, waitMs: number): Promise<number[]> {
    await this.connected(this.admin);
    if (this.line.length === 0) {
      const got = await this.take(count, token);
      if (got) return got;
    }
    const started = Date.now();
    const place: Place = { tryNow: false, wake: () => {} };
    this.line.push(place);
    try {
      for (;;) {
        const waited = Date.now() - started;
        if (waited >= waitMs) throw new PoolBusyError(waited);
        if (this.line[0] !== place) {
          await new Promise<void>((resolve) => (place.wake = wakeWith(place, resolve)));
          continue;
        }
        if (place.tryNow) {
          const got = await this.take(count, token);
          if (got) {
            this.freed = Math.max(0, this.freed - count);
            return got;
          }
          this.freed = 0;
        }
        place.tryNow = true; // after the wait below, whatever ends it
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(POLL_MS, waitMs - waited));
          place.wake = wakeWith(place, () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    } finally {
      this.line.splice(this.line.indexOf(place), 1);
      this.line[0]?.wake(this.freed > 0);
    }
  }

  /** One try at `count` free leases at once (all or none), or null. */
  private async take(count: number, token: string): Promise<number[] | null> {
    // Start at a random database so processes do not all contend for the first ones.
    const offset = Math.floor(Math.random() * this.dbs.length);
    const order = [...this.dbs.slice(offset), ...this.dbs.slice(0, offset)];
    const args = [order.length, ...order.map(leaseKey), token, this.ttlMs, count, ...order];
    const got = (await this.script(TAKE, TAKE_SHA, args)) as number[];
    return got.length === count ? got.map((i) => order[i - 1]!) : null;
  }

  /** A lease script, as the admin: EVALSHA first, the script sent whole only when the server lacks it. */
  private script(source: string, sha: string, args: Array<string | number>): Promise<unknown> {
    return this.admin.call('EVALSHA', sha, ...args).catch((error) => {
      if (!String(error).includes('NOSCRIPT')) throw error;
      return this.admin.eval(source, ...(args as [number, ...Array<string | number>]));
    });
  }

  /** A run of this process gave `count` leases back: the first in line may have them. */
  private gaveBack(count: number): void {
    this.freed += count;
    this.line[0]?.wake(true);
  }

  /** The run's connection to `db`, as the explorer (reused across runs of this process). */
  private async lease(db: number): Promise<Lease> {
    let client = this.clients.get(db);
    if (!client) {
      client = this.explorerConnection(db);
      this.clients.set(db, client);
    }
    await this.asExplorer(client);
    return { db, client };
  }

  /**
   * A connection that enters `db` as the admin (iovalkey's AUTH + SELECT, again on every reconnect) and
   * then becomes the explorer: its `explorer` promise settles once the AUTH is answered.
   */
  private explorerConnection(db: number): Valkey {
    const client = new Valkey(this.adminUrl, {
      db,
      lazyConnect: true,
      // A sandbox outage fails a run at once instead of queueing it; the client reconnects by itself.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A command in flight when the server dies fails; it is never replayed on the restarted (empty)
      // server as if the run had gone on.
      autoResendUnfulfilledCommands: false,
      retryStrategy: reconnect,
    });
    client.on('error', () => {});
    client.setMaxListeners(0);
    loadScriptsThrough(client, this.admin);
    const state = { explorer: null as Promise<void> | null };
    // Sent first thing on every (re)connection: no command of a run can go before it as the admin.
    client.on('ready', () => {
      state.explorer = client
        .call('AUTH', this.explorer.username, this.explorer.password)
        .then(() => undefined);
      state.explorer.catch(() => {});
    });
    client.on('close', () => (state.explorer = null));
    explorerState.set(client, state);
    return client;
  }

  private async asExplorer(client: Valkey): Promise<void> {
    await whenReady(client);
    const state = explorerState.get(client)!;
    if (!state.explorer) throw new Error('Connection is closed (the sandbox is restarting)');
    await state.explorer;
  }
}

/**
 * Connects a lazy client, or waits a moment for one that is connecting for the first time. One that is
 * reconnecting (its server died) is not waited for: the run fails at once as SANDBOX_DOWN.
 */
async function whenReady(client: Valkey, waitMs = 1000): Promise<void> {
  if (client.status === 'wait') {
    client.once('ready', () => everReady.add(client));
    client.connect().catch(() => {});
  }
  if (everReady.has(client)) return;
  if (client.status !== 'connecting' && client.status !== 'connect') return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    client.on('ready', done);
  });
}

/** Clients that were ready once: when one is not ready now, its server went away. */
const everReady = new WeakSet<Valkey>();

const explorerState = new WeakMap<Valkey, { explorer: Promise<void> | null }>();
