// Readers share one sandbox server but never one keyspace: each run leases logical databases of its
// own, flushed before it is handed out and after it is given back, so nothing outlives a run.

import { Valkey, type RedisOptions } from 'iovalkey';

export interface Lease {
  db: number;
  client: Valkey;
  /** A URL for new connections (connectors) to the same database, as the same user. */
  url: string;
}

export class PoolBusyError extends Error {
  constructor(waitedMs: number) {
    super(`every sandbox keyspace is in use; waited ${waitedMs} ms. Try again in a moment.`);
    this.name = 'PoolBusyError';
  }
}

interface Waiter {
  count: number;
  resolve: (dbs: number[]) => void;
}

export class KeyspacePool {
  private readonly free: number[];
  private readonly clients = new Map<number, Valkey>();
  private readonly waiters: Waiter[] = [];
  private readonly baseUrl: URL;

  /** Databases first..first+size-1 of the server at `url`, reached with `options` (user, password). */
  constructor(url: string, size: number, options: RedisOptions = {}, first = 1) {
    this.baseUrl = new URL(url);
    if (options.username) this.baseUrl.username = options.username;
    if (options.password) this.baseUrl.password = options.password;
    this.free = Array.from({ length: size }, (_, i) => first + i);
    for (const db of this.free) {
      const client = new Valkey(url, {
        ...options,
        db,
        lazyConnect: true,
        // A sandbox outage fails a run at once instead of queueing it; the client reconnects by itself.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: (times) => Math.min(times * 100, 1000),
      });
      client.on('error', () => {});
      this.clients.set(db, client);
    }
  }

  get size(): number {
    return this.clients.size;
  }

  get available(): number {
    return this.free.length;
  }

  /** Runs `work` with `count` fresh databases of its own, and flushes them afterwards whatever happens. */
  async with<T>(count: number, work: (leases: Lease[]) => Promise<T>, waitMs = 5000): Promise<T> {
    const dbs = await this.acquire(count, waitMs);
    const leases = dbs.map((db) => this.lease(db));
    try {
      await Promise.all(
        leases.map(async ({ client }) => {
          if (client.status === 'wait') await client.connect();
          await client.flushdb();
        }),
      );
      return await work(leases);
    } finally {
      await Promise.all(leases.map(({ client }) => client.flushdb().catch(() => {})));
      this.release(dbs);
    }
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.clients.values()].map((client) => client.quit().catch(() => client.disconnect())),
    );
  }

  private lease(db: number): Lease {
    const url = new URL(this.baseUrl);
    url.pathname = `/${db}`;
    return { db, client: this.clients.get(db)!, url: url.toString() };
  }

  private acquire(count: number, waitMs: number): Promise<number[]> {
    if (count > this.size) throw new RangeError(`a run may lease at most ${this.size} keyspaces`);
    if (this.waiters.length === 0 && this.free.length >= count)
      return Promise.resolve(this.free.splice(0, count));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { count, resolve };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new PoolBusyError(waitMs));
      }, waitMs);
      waiter.resolve = (dbs) => {
        clearTimeout(timer);
        resolve(dbs);
      };
      this.waiters.push(waiter);
    });
  }

  private release(dbs: number[]): void {
    this.free.push(...dbs);
    // First come, first served: a run waiting for two keyspaces is not starved by runs wanting one.
    while (this.waiters.length > 0 && this.free.length >= this.waiters[0]!.count) {
      const waiter = this.waiters.shift()!;
      waiter.resolve(this.free.splice(0, waiter.count));
    }
  }
}
