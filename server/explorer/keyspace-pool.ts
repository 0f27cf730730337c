// Readers share one sandbox server but never one keyspace: each run leases databases of its own,
// flushed by the lease scripts before and after. The leases are keys in database 0, so site processes
// share one server, and one that dies mid-run strands nothing: its leases expire, and the next taker
// flushes first. A run's connection opens as the admin on its database, then becomes the explorer (which
// may not SELECT); it never reconnects, as a new socket would start as the admin.

import { once } from 'node:events';
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

/** Fewer keyspaces than a run needs, or a lease script or SELECT refused: the deployment's limit. */
export class SandboxLimitError extends Error {
  constructor(limit: { keyspaces: string; count: number } | { command: string; reply: string }) {
    super(catalogueText('SANDBOX_LIMIT', limit, 'command' in limit ? 'refused' : 'keyspaces'));
    this.name = 'SandboxLimitError';
  }
}

export interface PoolOptions {
  explorer: { username: string; password: string };
  /** A run is ended (its commands cancelled, its keyspace flushed) after this long. */
  deadlineMs?: number;
  /** How long past the deadline a lease may outlive a run whose process died or whose flush failed. */
  graceMs?: number;
}

// Taking and giving back leases, all or none, in one script each.
const LEASE_LUA = join(projectRoot(), 'server', 'explorer', 'lua');
const TAKE = luaScript(LEASE_LUA, 'lease-take-n.lua');
const GIVE = luaScript(LEASE_LUA, 'lease-give-n.lua');

/** Whose a lease is: this host and process (a random part, as pids are reused), then a run number. */
const PROCESS_TOKEN = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
let runs = 0;
/** Pools made in this process: a site has one, a test may make two to stand for two processes. */
let pools = 0;

/** A run waiting in line for `count` leases. */
interface Place {
  count: number;
  /** Databases a run of ours gave back for this place to try first; null while it waits. */
  offered: number[] | null;
  /** Woken as first in line to look at once (leases may be free), not after LEASE_POLL_MS. */
  lookNow: boolean;
  /** Ends its wait: it was offered databases, or it is first in line now and must look for itself. */
  wake(): void;
}

export function leaseKey(db: number): string {
  return `sandbox:lease:${db}`;
}

/** What each site process's runs hold and want, by process: takes share the leases by it (lease-take-n.lua). */
export const ASKS_KEY = 'sandbox:lease:asks';
/** Where a take that left a lease free for another process says so: that process looks at once. */
export const FREE_CHANNEL = 'sandbox:lease:free';
/** How long a process's ask stands: the first of its runs in line renews it at each look. */
const ASK_TTL_MS = 2 * LEASE_POLL_MS;

export class KeyspacePool {
  private readonly adminUrl: string;
  private readonly deadlineMs: number;
  private readonly ttlMs: number;
  private readonly explorer: PoolOptions['explorer'];
  readonly size: number;
  private readonly clients = new Map<number, Valkey>();
  /** Runs the lease scripts, which flush. */
  private readonly admin: Valkey;
  /** When the admin is not ready now but was once, its server went away: runs fail at once. */
  private adminWasReady = false;
  /** Runs of this process waiting for leases, in the order they came. */
  private readonly line: Place[] = [];
  /** Databases runs of this process gave back that no place in line was offered yet (a hint, at most `size`). */
  private returned: number[] = [];
  /** Leases runs of this pool hold, and how many its runs in line want: its ask (ASKS_KEY). */
  private held = 0;
  private wanted = 0;
  /** Whose ask it is, its field in ASKS_KEY: this process, and which of its pools. */
  private readonly asker = `${PROCESS_TOKEN}/${(pools += 1)}`;
  /** Hears FREE_CHANNEL once a run of this pool waited in line. */
  private readonly listener: Valkey;
  private listening: Promise<unknown> | null = null;
  /** Whether a take of ours wrote our ask since our line was last empty. */
  private asking = false;
  private closing = false;
  private corked = false;

  /** Databases 1..size of the server at `adminUrl` (a URL with the admin's credentials). */
  constructor(adminUrl: string, size: number, options: PoolOptions) {
    this.adminUrl = adminUrl;
    this.explorer = options.explorer;
    this.deadlineMs = options.deadlineMs ?? DEFAULTS.RUN_DEADLINE_MS;
    this.ttlMs = this.deadlineMs + (options.graceMs ?? DEFAULTS.LEASE_GRACE_MS);
    this.size = size;
    this.admin = new Valkey(adminUrl, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      retryStrategy: reconnectAfter,
    });
    this.admin.on('error', () => {});
    this.admin.once('ready', () => (this.adminWasReady = true));
    this.admin.setMaxListeners(0); // every waiting run listens for its `ready`
    this.listener = new Valkey(adminUrl, { lazyConnect: true, retryStrategy: reconnectAfter });
    this.listener.on('error', () => {});
    // Another process left a lease free for ours: the first in line looks now.
    this.listener.on('message', (_channel: string, from: string) => {
      const first = this.line[0];
      if (from === this.asker || !first) return;
      first.lookNow = true;
      first.wake();
    });
  }

  ready(): boolean {
    return this.admin.status === 'ready';
  }

  /** Opens what a first run would: the admin, its scripts loaded, and a connection per database. */
  async warm(): Promise<void> {
    await this.connected();
    await Promise.all([TAKE, GIVE, DUMP_SCRIPT].map((script) => loadScript(this.admin, script)));
    await Promise.all(Array.from({ length: this.size }, (_, i) => this.lease(i + 1)));
  }

  /** Runs `work` with `count` fresh databases, cut at the deadline and flushed whatever happens. */
  async with<T>(count: number, work: (leases: Lease[]) => Promise<T>, waitMs = KEYSPACE_WAIT_MS): Promise<T> {
    if (count > this.size) {
      const keyspaces = `${this.size} keyspace${this.size === 1 ? '' : 's'}`;
      throw new SandboxLimitError({ keyspaces, count });
    }
    const token = `${PROCESS_TOKEN}:${(runs += 1)}`;
    const dbs = await this.acquire(count, token, waitMs);
    this.held += dbs.length;
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
      this.held -= dbs.length;
      await this.giveBack(dbs, token);
    }
  }

  // Flushes the run's databases and gives them back; while the server cannot answer, tried again in the
  // background, so the leases come back as soon as it answers rather than when they expire.
  // Those waiting in line are offered the databases at once: their takes go out in the give's own write,
  // right behind it (a connection's commands run in order), instead of a round trip after its reply, one
  // taker at a time, which halved the runs a second once more readers came than there are keyspaces.
  private async giveBack(dbs: number[], token: string, tries = LEASE_GIVE_TRIES): Promise<void> {
    const given = this.script(GIVE, dbs.map(leaseKey), [token, ...dbs]);
    this.offer(dbs);
    try {
      await given;
    } catch {
      if (tries <= 1 || this.closing) return;
      const retry = setTimeout(() => void this.giveBack(dbs, token, tries - 1), LEASE_GIVE_RETRY_MS);
      retry.unref();
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.listener.disconnect(); // a subscriber has nothing to flush
    const all = [...this.clients.values(), this.admin];
    await Promise.all(all.map((client) => client.quit().catch(() => client.disconnect())));
  }

  // The admin, connected: a first connect is waited for a moment, a reconnect (its server died) is not,
  // and the run fails at once as SANDBOX_DOWN.
  private async connected(): Promise<void> {
    const admin = this.admin;
    if (admin.status === 'wait') admin.connect().catch(() => {});
    if (!this.adminWasReady && (admin.status === 'connecting' || admin.status === 'connect')) {
      await once(admin, 'ready', { signal: AbortSignal.timeout(1000) }).catch(() => {});
    }
    if (admin.status !== 'ready') throw new Error('Connection is closed (the sandbox is restarting)');
  }

  // Takes `count` leases. Runs of this process that find none free wait in line, first come first
  // served: each is woken when a run of ours gives back as many as it needs, and tries those first; the
  // first in line also looks every LEASE_POLL_MS for other processes' give-backs, and at once when one
  // leaves a lease free for ours or when the run before it found leases by looking (more may be free).
  private async acquire(count: number, token: string, waitMs: number): Promise<number[]> {
    await this.connected();
    if (this.line.length === 0) {
      const got = await this.take(count, token, this.returned.splice(0, count));
      if (got) return got;
    }
    this.listening ??= this.listener.subscribe(FREE_CHANNEL).catch(() => (this.listening = null));
    const started = Date.now();
    const place: Place = { count, offered: null, lookNow: false, wake: () => {} };
    this.line.push(place);
    this.wanted += count;
    let foundByLooking = false;
    try {
      for (;;) {
        const waited = Date.now() - started;
        if (waited >= waitMs) throw new PoolBusyError(waited);
        if (!place.offered && !place.lookNow) {
          const first = this.line[0] === place;
          const looked = await new Promise<boolean>((resolve) => {
            const look = first
              ? setTimeout(() => resolve(true), Math.min(LEASE_POLL_MS, waitMs - waited))
              : null;
            place.wake = () => {
              if (look) clearTimeout(look);
              resolve(false);
            };
          });
          // Woken as the new first in line: from now on it looks for itself.
          if (!looked && !place.offered && !place.lookNow) continue;
        }
        place.lookNow = false;
        const offered = place.offered;
        const got = await this.take(count, token, offered ?? []);
        foundByLooking = offered === null;
        // Offered more while it tried: tried next, or handed on below if this try was enough.
        place.offered = place.offered === offered ? null : place.offered;
        if (got) return got;
      }
    } finally {
      this.line.splice(this.line.indexOf(place), 1);
      this.wanted -= count;
      // Nobody of ours in line: our ask goes (the hash with its last field), so nothing is left behind.
      if (this.line.length === 0 && this.asking) {
        this.asking = false;
        this.admin.hdel(ASKS_KEY, this.asker).catch(() => {});
      }
      if (place.offered) this.returned.unshift(...place.offered);
      const next = this.line[0];
      if (next) {
        next.lookNow ||= foundByLooking;
        next.wake();
      }
      this.offer([]);
    }
  }

  /**
   * Offers databases given back (with any not offered yet) to the places in line that wait, in order,
   * each as many as it needs; a place needing more than there are holds those behind it back.
   */
  private offer(dbs: number[]): void {
    for (const db of dbs) if (!this.returned.includes(db)) this.returned.push(db);
    if (this.returned.length > this.size) this.returned.splice(0, this.returned.length - this.size);
    for (const place of this.line) {
      if (place.offered) continue; // trying already
      if (this.returned.length < place.count) break;
      place.offered = this.returned.splice(0, place.count);
      place.wake();
    }
  }

  /**
   * One try at `count` free leases at once (all or none), `first` tried first, or null; with this pool's
   * ask (what its runs hold and want in line), by which the take shares the leases between processes.
   */
  private async take(count: number, token: string, first: number[]): Promise<number[] | null> {
    // Then from a random database, so processes do not all contend for the first ones.
    const offset = Math.floor(Math.random() * this.size);
    const rest = Array.from({ length: this.size }, (_, i) => ((offset + i) % this.size) + 1);
    const order = first.length === 0 ? rest : [...first, ...rest.filter((db) => !first.includes(db))];
    const ask = [this.asker, this.held, this.wanted, ASK_TTL_MS, FREE_CHANNEL];
    this.asking ||= this.wanted > 0;
    const args = [token, this.ttlMs, count, ...ask, ...order];
    const keys = [...order.map(leaseKey), ASKS_KEY];
    const got = (await this.script(TAKE, keys, args).catch(refusedAsLimit)) as number[];
    return got.length === count ? got.map((i) => order[i - 1]!) : null;
  }

  // The lease scripts of one turn of the event loop go out in one write: corked until setImmediate, as
  // auto-pipelining would batch them, without the Pipeline it makes (costlier than two scripts).
  private script(script: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
    if (!this.corked && this.admin.status === 'ready') {
      const socket = this.admin.stream;
      this.corked = true;
      socket.cork();
      setImmediate(() => {
        this.corked = false;
        socket.uncork();
      });
    }
    return runScript(this.admin, script, keys, args);
  }

  /** The run's connection to `db`, as the explorer: kept from an earlier run while it is open. */
  private async lease(db: number): Promise<Lease> {
    const kept = this.clients.get(db);
    if (kept?.status === 'ready') return { db, client: kept };
    this.clients.delete(db);
    kept?.disconnect();
    const client = await this.openAsExplorer(db);
    this.clients.set(db, client);
    return { db, client };
  }

  // Opens a connection as the admin, enters `db` and becomes the explorer; if either is refused it is
  // closed, never handed out: one that stayed the admin could reach every database.
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
      // Its options still hold the admin's password (from the URL), which a run could read or
      // `duplicate()` into an admin connection; it never connects again, so they now say who it is.
      Object.assign(client.options, { username: this.explorer.username, password: this.explorer.password });
      return client;
    } catch (error) {
      client.disconnect();
      throw error;
    }
  }
}

/** A lease script refused with ERR or NOPERM (a database it lacks) is the deployment's limit. */
function refusedAsLimit(error: unknown): never {
  const message = String((error as Error)?.message ?? error);
  if ((error as Error)?.name === 'ReplyError' && /^(ERR|NOPERM) /.test(message)) {
    throw new SandboxLimitError({ command: 'the lease script', reply: message });
  }
  throw error;
}
