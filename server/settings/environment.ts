// Every limit a deployer may set, read from the environment in this one file, each with its default.
// A value that is not a number of the kind asked for ends the start with the variable's name and what
// was wrong, never a silent default. docs/api.md's Limits table states these defaults;
// tests/unit/limits-doc.test.ts holds it to them, and tests/unit/environment.test.ts holds every other
// file of server/ to the few variables that name servers rather than limits, each read where it says.

import { readFileSync } from 'node:fs';
import type { AddressLogging } from '../observe/access-log.ts';
import { RESERVED_DESCRIPTORS, RUN_ANSWER_MARGIN_MS } from './bounds.ts';

/** Each numeric variable and the value it takes when unset or empty. */
export const DEFAULTS = {
  /** Open connections at most, all addresses together (and never more than the file limit allows). */
  MAX_CONNECTIONS: 8192,
  /** Open connections at most from one address. */
  MAX_CONNECTIONS_PER_ADDRESS: 64,
  /** Time for a client to send a request's headers. */
  HEADERS_TIMEOUT_MS: 10_000,
  /** Time for a client to send a whole request, body included. */
  REQUEST_TIMEOUT_MS: 15_000,
  /** An idle keep-alive connection is closed after this. */
  KEEP_ALIVE_TIMEOUT_MS: 5_000,
  /**
   * A request body's pace: this long to start, then this many bytes a second, so a body of n bytes is
   * whole within BODY_GRACE_MS + n ÷ BODY_BYTES_PER_S (never past REQUEST_TIMEOUT_MS). Our bodies are
   * a few KB (4 KB for a run, 50 KB for the console): a reader on the slowest mobile link sends one in a
   * second or two, and a slow-body flood (a byte every few seconds) gives its places back within a few
   * seconds instead of the whole request timeout.
   */
  BODY_GRACE_MS: 2000,
  BODY_BYTES_PER_S: 2048,
  /**
   * Runs (API calls, server islands) one client may start at once, then EXPLORER_RATE a second; reads
   * of the catalogue and status checks have a budget each of the same size (server/api/routes.ts).
   */
  EXPLORER_BURST: 30,
  EXPLORER_RATE: 5,
  /** A run is ended (its commands cancelled, its keyspace flushed and given back) after this long. */
  RUN_DEADLINE_MS: 15_000,
  /** How long past the deadline a lease may outlive a run whose process died (it then expires). */
  LEASE_GRACE_MS: 5_000,
  /** Site processes behind one port. */
  WORKERS: 1,
  /** The port the site listens on. */
  PORT: 4321,
} as const;

type Env = NodeJS.ProcessEnv;

/** A variable's value, or its default when unset or empty; anything but a positive number is refused. */
export function positive(env: Env, name: keyof typeof DEFAULTS): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return DEFAULTS[name];
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${raw}`);
  return value;
}

/** As `positive`, for a count: a whole number. */
function whole(env: Env, name: keyof typeof DEFAULTS): number {
  const value = positive(env, name);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, not ${env[name]}`);
  return value;
}

export interface FrontSettings {
  /** Open connections at most, all addresses together: well below the file limit. */
  maxConnections: number;
  /** Open connections at most from one address. */
  maxConnectionsPerAddress: number;
  /** Time for a client to send a request's headers. */
  headersTimeoutMs: number;
  /** Time for a client to send a whole request, body included. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A request body's time to start, then the bytes a second it must keep. */
  bodyGraceMs: number;
  bodyBytesPerSecond: number;
  /** Runs (API calls, server islands) a client may start at once, then `ratePerSecond`. */
  burst: number;
  ratePerSecond: number;
  /** Addresses of proxies whose `x-forwarded-for` is believed; empty: the peer address is the client. */
  trustProxy: string[];
  /** How much of the reader's address the access log keeps (LOG_ADDRESSES; none when unset). */
  logAddresses?: AddressLogging;
}

const ADDRESS_LOGGING: readonly AddressLogging[] = ['none', 'network', 'full'];

/** LOG_ADDRESSES: `none` (the default), `network` (a /24 or /48) or `full`. */
export function addressLogging(env: Env = process.env): AddressLogging {
  const raw = env.LOG_ADDRESSES || 'none';
  if (!(ADDRESS_LOGGING as readonly string[]).includes(raw))
    throw new Error(`LOG_ADDRESSES must be one of ${ADDRESS_LOGGING.join(', ')}, not ${raw}`);
  return raw as AddressLogging;
}

/** The process's soft limit on open files (RLIMIT_NOFILE), read from /proc; 1024 when unknown. */
export function fileLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) && soft > 0 ? soft : 1024;
  } catch {
    return 1024;
  }
}

/** The front's settings for one process; with `workers` processes behind one port, each takes its share. */
export function frontSettings(env: Env = process.env, workers = 1): FrontSettings {
  // HTTP sockets may use what is left after the reserve, and never more than half the limit.
  const files = fileLimit();
  const byFiles = Math.max(64, Math.min(files - RESERVED_DESCRIPTORS, files / 2));
  const share = (n: number) => Math.max(1, Math.ceil(n / workers));
  return {
    maxConnections: Math.floor(Math.min(positive(env, 'MAX_CONNECTIONS'), byFiles)),
    maxConnectionsPerAddress: positive(env, 'MAX_CONNECTIONS_PER_ADDRESS'),
    headersTimeoutMs: positive(env, 'HEADERS_TIMEOUT_MS'),
    requestTimeoutMs: positive(env, 'REQUEST_TIMEOUT_MS'),
    keepAliveTimeoutMs: positive(env, 'KEEP_ALIVE_TIMEOUT_MS'),
    bodyGraceMs: positive(env, 'BODY_GRACE_MS'),
    bodyBytesPerSecond: positive(env, 'BODY_BYTES_PER_S'),
    burst: share(positive(env, 'EXPLORER_BURST')),
    ratePerSecond: positive(env, 'EXPLORER_RATE') / workers,
    trustProxy: (env.TRUST_PROXY ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    logAddresses: addressLogging(env),
  };
}

export interface RunSettings {
  /** A run is ended after this long. */
  deadlineMs: number;
  /** A lease whose process died expires this long after the deadline. */
  graceMs: number;
}

export function runSettings(env: Env = process.env): RunSettings {
  return { deadlineMs: positive(env, 'RUN_DEADLINE_MS'), graceMs: positive(env, 'LEASE_GRACE_MS') };
}

/**
 * How long a drain after SIGTERM may take (server/drain.ts): a run's deadline, the API's margin past it,
 * and a few seconds for a body still arriving and the answer to go out. 20 s by default.
 */
export function drainDeadlineMs(env: Env = process.env): number {
  return runSettings(env).deadlineMs + RUN_ANSWER_MARGIN_MS + 4000;
}

export interface MetricsSettings {
  host: string;
  port: number;
}

/**
 * Where /metrics is served: METRICS_PORT (unset or empty: no metrics at all), on METRICS_HOST (loopback
 * unless set). Never the public port.
 */
export function metricsSettings(env: Env = process.env): MetricsSettings | null {
  const raw = env.METRICS_PORT;
  if (raw === undefined || raw === '') return null;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`METRICS_PORT must be a port number (1 to 65535), not ${raw}`);
  const host = env.METRICS_HOST || '127.0.0.1';
  const site = siteSettings(env);
  if (port === site.port && (host === site.host || host === '0.0.0.0' || site.host === '0.0.0.0'))
    throw new Error(
      `METRICS_PORT must not be the public port (${site.port}): the metrics are the operator's`,
    );
  return { host, port };
}

export interface SiteSettings {
  /** The address the site listens on. */
  host: string;
  port: number;
  /** Site processes behind the port. */
  workers: number;
  /** Whether one site process starts the Valkey 9.1 cluster at start (else on the first atomic run). */
  valkey9AtStart: boolean;
}

export function siteSettings(env: Env = process.env): SiteSettings {
  const port = env.PORT === '0' ? 0 : whole(env, 'PORT');
  if (port > 65535) throw new Error(`PORT must be a port number (0 to 65535), not ${env.PORT}`);
  return {
    host: env.HOST ?? '127.0.0.1',
    port,
    workers: whole(env, 'WORKERS'),
    valkey9AtStart: env.VALKEY9_AT_START !== '0',
  };
}
