// The valkey-servers one site started, found by what they are (their process name and executable, in the
// site's process tree), never machine-wide: other agents run valkey-servers on this machine too. Each comes with its
// version (the Valkey 9.1 build's binary or not), its port, and the admin's credentials read from its
// own users.conf (its working directory is its data directory), so a test can ask it what is in flight.

import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Valkey } from 'iovalkey';
import { queueKeyBatches } from '../../server/cluster/queue-keys.ts';
import { valkey9Build } from '../../server/sandbox/valkey9-build.ts';
import { alive, processTreeOf } from './processes.ts';

export interface SiteServer {
  pid: number;
  /** The process that started it (the site, or one of its workers). */
  ppid: number;
  version: '8' | '9.1';
  /** A cluster node (its command line says `[cluster]`), else the standalone. */
  cluster: boolean;
  port: number;
  admin: { username: string; password: string } | null;
}

function adminOf(pid: number): SiteServer['admin'] {
  try {
    const users = readFileSync(join(readlinkSync(`/proc/${pid}/cwd`), 'users.conf'), 'utf8');
    const match = /^user (\S+) on >(\S+)/m.exec(users);
    return match ? { username: match[1]!, password: match[2]! } : null;
  } catch {
    return null;
  }
}

/** Every valkey-server in `root`'s process tree (the site, its workers, their children) that has named its port. */
export function siteServers(root: number): SiteServer[] {
  const build = valkey9Build();
  const nine = build.state === 'ready' ? build.server : null;
  const out: SiteServer[] = [];
  for (const entry of processTreeOf(root)) {
    // Its name is the one it was started by (Debian's valkey-server is a link to valkey-check-rdb).
    if (entry.comm !== 'valkey-server') continue;
    let exe = '';
    try {
      exe = readlinkSync(`/proc/${entry.pid}/exe`).replace(/ \(deleted\)$/, '');
    } catch {
      continue;
    }
    // valkey-server names itself `<binary> <host>:<port> [cluster]` in its command line, once it has
    // read its configuration: until then it is still starting, and not yet one of the site's servers
    // (a port of NaN would connect nowhere, and `stillRunning` could not tell it from a reused pid).
    const port = Number(/:(\d+)\b/.exec(entry.cmdline)?.[1] ?? NaN);
    if (!Number.isInteger(port)) continue;
    out.push({
      pid: entry.pid,
      ppid: entry.ppid,
      version: exe === nine ? '9.1' : '8',
      cluster: entry.cmdline.includes('[cluster]'),
      port,
      admin: adminOf(entry.pid),
    });
  }
  return out;
}

/** Those of `servers` still running (a pid is checked with its port: a reused pid is not the server). */
export function stillRunning(servers: SiteServer[]): SiteServer[] {
  return servers.filter((server) => {
    if (!alive(server.pid)) return false;
    try {
      return readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').includes(`:${server.port}`);
    } catch {
      return false;
    }
  });
}

/** An admin connection to one of the site's servers. */
export function adminClient(server: SiteServer): Valkey {
  const client = new Valkey({
    host: '127.0.0.1',
    port: server.port,
    username: server.admin?.username,
    password: server.admin?.password,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  return client;
}

/** The states of a node's migration jobs that have not finished (CLUSTER GETSLOTMIGRATIONS). */
export async function unfinishedMigrations(client: Valkey): Promise<string[]> {
  const jobs = (await client.call('CLUSTER', 'GETSLOTMIGRATIONS')) as unknown[][];
  return jobs
    .map((flat) => String(flat[flat.findIndex((field, i) => i % 2 === 0 && String(field) === 'state') + 1]))
    .filter((state) => !['success', 'failed', 'cancelled'].includes(state));
}

/** How many queue keys (`emq:…`) a node holds. */
export async function queueKeysOn(client: Valkey): Promise<number> {
  let count = 0;
  for await (const keys of queueKeyBatches(client)) count += keys.length;
  return count;
}

/** Which of `nodes` (one cluster's) serves `slot`, read from a node's CLUSTER NODES. */
export async function ownerOfSlot(nodes: SiteServer[], slot: number): Promise<SiteServer> {
  for (const server of nodes) {
    const client = adminClient(server);
    try {
      const table = String(await client.call('CLUSTER', 'NODES').catch(() => ''));
      for (const line of table.split('\n')) {
        const words = line.split(' ');
        const port = Number(/:(\d+)@/.exec(words[1] ?? '')?.[1]);
        const owns = words.slice(8).some((range) => {
          const [lo, hi = lo] = range.split('-').map(Number);
          return slot >= lo! && slot <= hi!;
        });
        if (owns) return nodes.find((s) => s.port === port)!;
      }
    } finally {
      client.disconnect();
    }
  }
  throw new Error(`no node serves slot ${slot}`);
}
