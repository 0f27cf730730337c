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
// SELECT it tries is refused with NOPERM. Such a connection never reconnects by itself (a reconnected
// socket would start as the admin again): one that closes, or whose SELECT or AUTH fails, is dropped
// and the next run on that database opens a new one.

import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Valkey } from 'iovalkey';
import { RunTimeoutError } from '../catalogue/run-timeout.ts';
import { loadScript, loadScriptsThrough, runScript } from '../executors/scripted.ts';
import { DUMP_SCRIPT } from '../inspect/keyspace-dump.ts';
import { luaScript, type Script } from '../lua/lua-file.ts';
import { projectRoot } from '../project-root.ts';
import { settledWithin } from '../run-deadline.ts';
import { BusyError } from '../catalogue/busy.ts';
import { catalogueText } from '../contract/catalogue/catalogue-text.ts';
import {
  KEYSPACE_CONNECT_MS,
  KEYSPACE_WAIT_MS,
  LEASE_GIVE_RETRY_MS,
  LEASE_GIVE_TRIES,
  LEASE_POLL_MS,
  reconnectAfter,
} from '../settings/bounds.ts';
import { DEFAULTS } from '../settings/environment.ts';

export interface Lease {
  db: number;
  /** The run's connection to its database, as the explorer. */
  client: Valkey;
}

export class PoolBusyError extends BusyError {
  constructor(waitedMs: number) {
    super(catalogueText('BUSY', { ms: waitedMs }, 'pool'));
    this.name = 'PoolBusyError';
  }
}

/**
 * The server cannot give a run the keyspaces it needs: fewer databases than the run asks for, or a lease
 * script or SELECT the server refuses (a database it does not have). A limit of the deployment, not a bug.
 */
export class SandboxLimitError extends Error {
  /** Fewer keyspaces than the run needs (`keyspaces`, e.g. "1 keyspace"), or a refused `command`. */
  constructor(limit: { keyspaces: string; count: number } | { command: string; reply: string }) {
    super(
      'command' in limit
        ? catalogueText('SANDBOX_LIMIT', limit, 'refused')
        : catalogueText('SANDBOX_LIMIT', limit, 'keyspaces'),
    );
    this.name = 'SandboxLimitError';
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

// Taking and giving back leases, all or none, in one script each: server/explorer/lua/lease-*-n.lua.
const LEASE_LUA = join(projectRoot(), 'server', 'explorer', 'lua');
const TAKE = luaScript(LEASE_LUA, 'lease-take-n.lua');
const GIVE = luaScript(LEASE_LUA, 'lease-give-n.lua');

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
   * Lease scripts (which flush), as the admin: the takes and gives of concurrent runs go out in one
   * write (`writeThisTurn`).
   */
  private readonly admin: Valkey;
  /** Runs of this process waiting for leases, in the order they came. */
  private readonly line: Place[] = [];
  /** Leases given back by runs of this process since the first in line last tried. */
  private freed = 0;
  private closing = false;
  /** Whether the admin's socket holds this turn's lease scripts for one write (`writeThisTurn`). */
  private corked = false;

  /** Databases first..first+size-1 of the server at `adminUrl` (a URL with the admin's credentials). */
  constructor(adminUrl: string, size: number, options: PoolOptions) {
    this.adminUrl = adminUrl;
    this.explorer = options.explorer;
    this.deadlineMs = options.deadlineMs ?? DEFAULTS.RUN_DEADLINE_MS;
    this.ttlMs = this.deadlineMs + (options.graceMs ?? DEFAULTS.LEASE_GRACE_MS);
    const first = options.first ?? 1;
    this.dbs = Array.from({ length: size }, (_, i) => first + i);
    const adminOptions = {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      retryStrategy: reconnectAfter,
    };
    this.admin = new Valkey(adminUrl, { ...adminOptions, lazyConnect: true });
    this.admin.on('error', () => {});
    this.admin.setMaxListeners(0); // every waiting run listens for its `ready`
  }

  get size(): number {
    return this.dbs.length;
  }

  /** Whether runs can take leases now (the admin connection that runs the lease scripts is up). */
  ready(): boolean {
    return this.admin.status === 'ready';
  }

  /**
   * Opens what a first run would otherwise open: the admin connection, with the lease scripts and the
   * in-server keyspace dump loaded, and one explorer connection per database (no lease is taken:
   * nothing is sent on them).
   */
  async warm(): Promise<void> {
    await this.connected(this.admin);
    await Promise.all([TAKE, GIVE, DUMP_SCRIPT].map((script) => loadScript(this.admin, script)));
    await Promise.all(
      this.dbs.map(async (db) => {
        if (this.clients.get(db)?.status !== 'ready') this.clients.set(db, await this.openAsExplorer(db));
      }),
    );
  }

  /**
   * Runs `work` with `count` fresh databases of its own and flushes them afterwards whatever happens.
   * At the deadline the run's connections are cut (its commands cancelled) and its databases flushed.
   */
  async with<T>(count: number, work: (leases: Lease[]) => Promise<T>, waitMs = KEYSPACE_WAIT_MS): Promise<T> {
    if (count > this.size) {
      const keyspaces = `${this.size} keyspace${this.size === 1 ? '' : 's'}`;
      throw new SandboxLimitError({ keyspaces, count });
    }
    const token = `${PROCESS_TOKEN}:${(runs += 1)}`;
    const dbs = await this.acquire(count, token, waitMs);
    try {
      const leases = await Promise.all(dbs.map((db) => this.lease(db)));
      return await settledWithin(
        this.deadlineMs,
        () => {
          // Cut the run's connections: what it had in flight fails, and nothing more of it is sent.
          for (const lease of leases) lease.client.disconnect();
          return new RunTimeoutError(this.deadlineMs);
        },
        work(leases),
      );
    } finally {
      await this.giveBack(dbs, token);
    }
  }

  /**
   * Flushes the run's databases and gives their leases back. When the server cannot answer now (the
   * admin connection is reconnecting), a few more tries follow in the background, so the leases come
   * back as soon as it answers rather than when they expire; whoever takes a lease that expired
   * flushes it first all the same. A lease is never given back unflushed.
   */
  private async giveBack(dbs: number[], token: string, tries = LEASE_GIVE_TRIES): Promise<void> {
    try {
      await this.script(GIVE, dbs.map(leaseKey), [token, ...dbs]);
      this.gaveBack(dbs.length);
    } catch {
      if (tries <= 1 || this.closing) return;
      const retry = setTimeout(() => void this.giveBack(dbs, token, tries - 1), LEASE_GIVE_RETRY_MS);
      retry.unref();
    }
  }

  async close(): Promise<void> {
    this.closing = true;
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
   * `LEASE_POLL_MS` for those other processes give back. A run leaving the line (served, or out of time)
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
          const timer = setTimeout(resolve, Math.min(LEASE_POLL_MS, waitMs - waited));
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
    const args = [token, this.ttlMs, count, ...order];
    const got = (await this.script(TAKE, order.map(leaseKey), args).catch(refusedAsLimit)) as number[];
    return got.length === count ? got.map((i) => order[i - 1]!) : null;
  }

  /** A lease script, as the admin (executors/scripted.ts: EVALSHA, loaded when the server lacks it). */
  private script(script: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
    this.writeThisTurn();
    return runScript(this.admin, script, keys, args);
  }

  /**
   * The lease scripts sent in this turn of the event loop go out in one write: the admin's socket is
   * corked until setImmediate, when iovalkey's auto-pipelining would send its batch, but without the
   * Pipeline it makes per batch (which cost more than a run's two lease scripts).
   */
  private writeThisTurn(): void {
    if (this.corked || this.admin.status !== 'ready') return;
    const socket = this.admin.stream;
    this.corked = true;
    socket.cork();
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  /** A run of this process gave `count` leases back: the first in line may have them. */
  private gaveBack(count: number): void {
    this.freed += count;
    this.line[0]?.wake(true);
  }

  /**
   * The run's connection to `db`, as the explorer: the one kept from an earlier run of this process while
   * it is still open, else a new one. Only this process's run holding the lease uses it.
   */
  private async lease(db: number): Promise<Lease> {
    const kept = this.clients.get(db);
    if (kept?.status === 'ready') return { db, client: kept };
    this.clients.delete(db);
    kept?.disconnect();
    const client = await this.openAsExplorer(db);
    this.clients.set(db, client);
    return { db, client };
  }

  /**
   * Opens a connection as the admin, enters `db` and becomes the explorer (SELECT and AUTH sent
   * together). If either is refused the connection is closed, never handed out: after a restart the
   * explorer's account may not exist yet, and a connection that stayed the admin could reach every
   * database. It never reconnects by itself, for the same reason.
   */
  private async openAsExplorer(db: number): Promise<Valkey> {
    const client = new Valkey(this.adminUrl, {
      lazyConnect: true,
      // A sandbox outage fails a run at once instead of queueing it.
      enableOfflineQueue: false,
      // The ready check would send INFO; the SELECT and AUTH below are the connection's first words.
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      // A command in flight when the server dies fails; it is never replayed anywhere.
      autoResendUnfulfilledCommands: false,
      retryStrategy: () => null,
      connectTimeout: KEYSPACE_CONNECT_MS,
    });
    client.on('error', () => {});
    client.on('close', () => {
      if (this.clients.get(db) === client) this.clients.delete(db);
    });
    loadScriptsThrough(client, this.admin);
    try {
      await client.connect();
      // Bounded: valkey-server 8.0 may leave a failed AUTH on a logged-in connection unanswered.
      const [entered, became] = await settledWithin(
        KEYSPACE_CONNECT_MS,
        () => new Error(`Connection is closed: SELECT and AUTH unanswered after ${KEYSPACE_CONNECT_MS} ms`),
        Promise.allSettled([
          client.select(db),
          client.call('AUTH', this.explorer.username, this.explorer.password),
        ]),
      );
      if (entered.status === 'rejected') {
        throw new SandboxLimitError({
          command: `SELECT ${db}`,
          reply: String(entered.reason?.message ?? entered.reason),
        });
      }
      if (became.status === 'rejected') throw became.reason;
      // The client's options still hold the admin's name and password (from the URL it opened with):
      // a run holding the client could read them, or `duplicate()` it into an admin connection. It
      // never connects again (no retries), so the options now say who it is.
      Object.assign(client.options, { username: this.explorer.username, password: this.explorer.password });
      return client;
    } catch (error) {
      client.disconnect();
      throw error;
    }
  }
}

/**
 * A lease script the server refused with a plain ERR (a database it does not have, a command its ACL
 * denies the admin) is a limit of this deployment; other failures (down, OOM, BUSY) are named elsewhere.
 */
function refusedAsLimit(error: unknown): never {
  const message = String((error as Error)?.message ?? error);
  if ((error as Error)?.name === 'ReplyError' && /^(ERR|NOPERM) /.test(message)) {
    throw new SandboxLimitError({ command: 'the lease script', reply: message });
  }
  throw error;
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
