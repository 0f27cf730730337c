// Every limit of the HTTP front, read once from the environment, each with a safe default.
// docs/api.md's Limits section lists them; change one with its variable.

import { readFileSync } from 'node:fs';

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
  /** Runs (API calls, server islands) a client may start at once, then `ratePerSecond`. */
  burst: number;
  ratePerSecond: number;
  /** Addresses of proxies whose `x-forwarded-for` is believed; empty: the peer address is the client. */
  trustProxy: string[];
}

/** Descriptors kept back for what is not an HTTP socket: Valkey connections, files, the runtime. */
export const RESERVED_DESCRIPTORS = 1024;

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

function number(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${raw}`);
  return value;
}

/** The settings of one process; with `workers` processes behind one port, each takes its share. */
export function frontSettings(env: NodeJS.ProcessEnv = process.env, workers = 1): FrontSettings {
  // HTTP sockets may use what is left after the reserve, and never more than half the limit.
  const byFiles = Math.max(64, Math.min(fileLimit() - RESERVED_DESCRIPTORS, fileLimit() / 2));
  const share = (n: number) => Math.max(1, Math.ceil(n / workers));
  return {
    maxConnections: Math.floor(Math.min(number(env, 'MAX_CONNECTIONS', 8192), byFiles)),
    maxConnectionsPerAddress: number(env, 'MAX_CONNECTIONS_PER_ADDRESS', 64),
    headersTimeoutMs: number(env, 'HEADERS_TIMEOUT_MS', 10_000),
    requestTimeoutMs: number(env, 'REQUEST_TIMEOUT_MS', 15_000),
    keepAliveTimeoutMs: number(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000),
    burst: share(number(env, 'EXPLORER_BURST', 30)),
    ratePerSecond: number(env, 'EXPLORER_RATE', 5) / workers,
    trustProxy: (env.TRUST_PROXY ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  };
}
