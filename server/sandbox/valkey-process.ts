// Starts and stops one real valkey-server: loopback only, nothing persisted, memory capped.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Valkey } from 'iovalkey';
import { projectRoot } from '../project-root.ts';
import { freePort } from './free-port.ts';
import { recordServer, runDir } from './run-dir.ts';
import { MAXMEMORY, SERVER_BOOT_MS, SERVER_OUTPUT_KEPT_BYTES } from '../settings/bounds.ts';
import { OutputTail } from './output-tail.ts';

export interface ValkeyNodeOptions {
  /** A cluster-enabled node; `cluster.ts` joins such nodes and gives them their slots. */
  cluster?: boolean;
  /**
   * Where a cluster node keeps its node id, peers and slots. Given by the caller and kept across
   * restarts, so a node restarted on its port comes back as itself with its slots.
   */
  clusterConfigFile?: string;
  /** Path of a module to load, or null for none. */
  module?: string | null;
  /** Words passed to the module when it loads (after its path). */
  moduleArgs?: string[];
  /** The valkey-server to run (default: VALKEY_SERVER, else `valkey-server` on the PATH). */
  binary?: string;
  /**
   * The node also signs in to its peers as the admin (primaryuser/primaryauth, in the private config
   * file): an atomic slot migration (Valkey 9) connects from the source to the target that way.
   */
  peerAuth?: boolean;
  maxmemory?: string;
  databases?: number;
  /** A fixed port (to come back where clients expect it after a restart); a free one by default. */
  port?: number;
  /** Extra `--name value` settings. */
  settings?: Record<string, string>;
  /**
   * An admin user to create, with the `default` user switched off so nothing reaches the server without
   * a password. The rules go into a config file only this user can read, never onto the command line
   * (which any local process can read in /proc).
   */
  admin?: AdminCredentials;
  /** Extra raw arguments, for a setting of several words (`--user <name> <rule>…`). */
  args?: string[];
  /**
   * A deployer's config file (deploy/valkey-*.conf) to start from instead of the settings above: only
   * the port, bind address and folder are set on the command line. `admin` then only names the
   * credentials the file gives (for the node's URL).
   */
  configFile?: string;
}

export interface AdminCredentials {
  username: string;
  password: string;
}

export interface ValkeyNode {
  /** The node's URL, carrying the admin credentials when it has an admin user. */
  url: string;
  host: string;
  port: number;
  cluster: boolean;
  module: string | null;
  process: ChildProcess;
  /** The server's latest output (its log), at most SERVER_OUTPUT_KEPT_BYTES of it. */
  output(): string;
  stop(): Promise<void>;
}

/** The built native module, when `native-module/` has been built. */
export function nativeModulePath(): string | null {
  const path = join(projectRoot(), 'native-module', 'target', 'release', 'libtrafikey.so');
  return existsSync(path) ? path : null;
}

export async function startValkeyNode(options: ValkeyNodeOptions = {}): Promise<ValkeyNode> {
  // Inside this process's run directory, so a watchdog (or the next start) stops it if we are killed.
  const dir = await mkdtemp(join(await runDir(), 'valkey-'));
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port ?? (await freePort());
    try {
      return await launch(port, dir, options);
    } catch (error) {
      // Another process may take the port between our probe and the server's bind: try a new one.
      if (attempt >= 3 || options.port) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
}

async function launch(port: number, dir: string, options: ValkeyNodeOptions): Promise<ValkeyNode> {
  const host = '127.0.0.1';
  const args: string[] = [];
  if (options.configFile) {
    args.push(options.configFile, '--port', String(port), '--bind', host, '--dir', dir);
    args.push('--daemonize', 'no', '--supervised', 'no', '--logfile', '');
  } else if (options.admin) {
    // valkey-server reads a config file only as its first argument.
    const config = join(dir, 'users.conf');
    const { username, password } = options.admin;
    let users = `user default off\nuser ${username} on >${password} ~* &* +@all\n`;
    if (options.peerAuth) users += `primaryuser ${username}\nprimaryauth ${password}\n`;
    await writeFile(config, users, { mode: 0o600 });
    args.push(config);
  }
  if (!options.configFile)
    args.push(
      '--port',
      String(port),
      '--bind',
      host,
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory',
      options.maxmemory ?? MAXMEMORY.standalone,
      '--maxmemory-policy',
      'noeviction',
      '--databases',
      String(options.databases ?? 16),
    );
  if (options.cluster) {
    const config = options.clusterConfigFile ?? join(dir, `nodes-${port}.conf`);
    args.push('--cluster-enabled', 'yes', '--cluster-config-file', config);
  }
  const module = options.module ?? null;
  if (module) args.push('--loadmodule', module, ...(options.moduleArgs ?? []));
  for (const [name, value] of Object.entries(options.settings ?? {})) args.push(`--${name}`, value);
  args.push(...(options.args ?? []));

  const binary = options.binary ?? process.env.VALKEY_SERVER ?? 'valkey-server';
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Every listener before the first await: a server that refuses its settings can exit meanwhile, and
  // an exit no one heard left the start waiting out SERVER_BOOT_MS for "Connection is closed.".
  const output = new OutputTail(SERVER_OUTPUT_KEPT_BYTES);
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  stopOnSignals();
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`cannot start ${binary}: ${error.message}`)));
    // 'close', after its output is all read: the words that say why are its last.
    child.once('close', (code, signal) =>
      reject(new Error(`${binary} exited (${code ?? signal}) on port ${port}:\n${output.text().trim()}`)),
    );
  });
  exited.catch(() => {});
  if (child.pid) await recordServer(dir, child.pid);

  const credentials = options.admin
    ? `${encodeURIComponent(options.admin.username)}:${encodeURIComponent(options.admin.password)}@`
    : '';
  const url = `redis://${credentials}${host}:${port}`;
  try {
    await Promise.race([waitReady(url), exited]);
  } catch (error) {
    child.kill('SIGKILL');
    process.off('exit', killOnExit);
    throw error;
  }

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= new Promise<void>((resolve) => {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }).then(() => rm(dir, { recursive: true, force: true })));

  return {
    url,
    host,
    port,
    cluster: Boolean(options.cluster),
    module,
    process: child,
    output: () => output.text(),
    stop,
  };
}

async function waitReady(url: string): Promise<void> {
  const client = new Valkey(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // Refused connections while the server boots are expected; untilAnswers retries them.
  client.on('error', () => {});
  try {
    await untilAnswers(client, SERVER_BOOT_MS, 20);
  } finally {
    client.disconnect();
  }
}

/**
 * Connects `client` (lazy, without retries of its own) and PINGs until a server that is still booting
 * answers; past `timeoutMs` the last error is thrown.
 */
export async function untilAnswers(client: Valkey, timeoutMs: number, pollMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (client.status !== 'ready') await client.connect();
      await client.ping();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      client.disconnect();
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}

let signalsHandled = false;

/**
 * A signal ends Node without its 'exit' event, which would leave our servers running. So on SIGINT,
 * SIGTERM or SIGHUP, unless the application handles the signal itself, the children are killed and the
 * signal raised again so the process ends as it would have. An application that handles it (the site's
 * drain, server/drain.ts) still needs its servers until its runs are answered, and ends with
 * process.exit, whose 'exit' event stops them.
 */
function stopOnSignals(): void {
  if (signalsHandled) return;
  signalsHandled = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = () => {
      if (process.listenerCount(signal) > 1) return;
      process.emit('exit', 128);
      process.off(signal, handler);
      process.kill(process.pid, signal);
    };
    process.on(signal, handler);
  }
}
