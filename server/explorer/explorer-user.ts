// The ACL user the site connects as. It may run only what the experiments send — the transitions'
// scripts and EMQ.* commands, the fence's GET and SET, and the reads that show a keyspace — and only
// on keys in the grammar (`emq:*`) or the reserve (`{emq}:*`). The scripts' own commands are checked
// against the same list, so a key outside the grammar is refused even inside a script.

import { createHash, randomBytes } from 'node:crypto';
import type { Valkey } from 'iovalkey';
import { scriptCommands } from '../executors/scripts.ts';
import { consoleAcl } from '../contract/console/commands.ts';
import { namespacePattern, reservePattern } from '../contract/keyspace/index.ts';

export const EXPLORER_USER = 'explorer';

// No SELECT (a run cannot leave its leased database) and no INFO (nothing to learn about the server).
const CONNECTION = ['ping', 'client|info', 'client|setinfo', 'client|setname', 'quit'];
const FENCE = ['get', 'set'];
// EVALSHA only: an admin loads the scripts, so the account runs the project's own Lua and no other.
const SCRIPTED = ['evalsha'];
// What the scripts call, read from their text: the server checks each call against this user too.
const IN_SCRIPTS = scriptCommands();
// No FLUSHDB: a run's keyspace is flushed by the admin's lease scripts, before the run and after it.
const VIEW = ['scan', 'type', 'hgetall', 'zrange', 'lrange', 'smembers', 'dbsize'];
// On a cluster: a key's slot, what a client reads to route (and its ready check), and ASKING.
const CLUSTER = ['cluster|keyslot', 'cluster|slots', 'cluster|info', 'asking'];

// What lists a keyspace instead of naming keys: key patterns do not bound it, and a cluster node's one
// keyspace holds every reader's queues and the site's locks, so a cluster node's account lacks it.
const WALKS_KEYSPACE = ['scan', 'dbsize'];

export function explorerRules(password: string, withNative: boolean, onCluster = false): string[] {
  const view = onCluster ? VIEW.filter((command) => !WALKS_KEYSPACE.includes(command)) : VIEW;
  // The console's commands on this kind of node, read from their rows (server/contract/console/commands.ts).
  const fromRows = consoleAcl(onCluster ? 'cluster' : 'standalone');
  const commands = new Set([
    ...CONNECTION,
    ...FENCE,
    ...SCRIPTED,
    ...IN_SCRIPTS,
    ...view,
    ...CLUSTER,
    ...fromRows.commands,
  ]);
  const keys = [`~${namespacePattern()}`, `~${reservePattern()}`];
  const rules = ['reset', 'on', `>${password}`, ...keys, 'resetchannels', '-@all'];
  rules.push(...[...commands].map((command) => `+${command}`));
  if (withNative) {
    // A selector lets the EMQ.* commands take any key, so an edited key reaches the module's own layout
    // check (which refuses it, naming the byte, and writes nothing) instead of stopping at the ACL.
    rules.push(`(~* ${fromRows.anyKey.map((command) => `+${command}`).join(' ')})`);
  }
  return rules;
}

// The same user as `--user` arguments (a restarted node has it from its first connection), the password
// as its SHA-256: any local process can read a command line.
export function explorerUserArgs(password: string, withNative: boolean, onCluster = false): string[] {
  const rules = explorerRules(password, withNative, onCluster).map((rule) =>
    rule.startsWith('>') ? `#${createHash('sha256').update(rule.slice(1)).digest('hex')}` : rule,
  );
  return ['--user', EXPLORER_USER, ...rules];
}

export function newPassword(): string {
  return randomBytes(18).toString('base64url');
}

/** Creates (or resets) the explorer user through an admin; answers whether trafikey is loaded. */
export async function installExplorerUser(admin: Valkey, password: string): Promise<boolean> {
  const [modules, cluster] = await Promise.all([admin.call('MODULE', 'LIST'), admin.info('cluster')]);
  const withNative = JSON.stringify(modules).includes('trafikey');
  const onCluster = String(cluster).includes('cluster_enabled:1');
  await admin.call('ACL', 'SETUSER', EXPLORER_USER, ...explorerRules(password, withNative, onCluster));
  return withNative;
}
