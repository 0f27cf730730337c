// The ACL user the site connects as. It may run only what the experiments send — the transitions'
// scripts and EMQ.* commands, the fence's GET and SET, and the reads that show a keyspace — and only
// on keys in the grammar (`emq:*`) or the reserve (`{emq}:*`). The scripts' own commands are checked
// against the same list, so a key outside the grammar is refused even inside a script.

import { randomBytes } from 'node:crypto';
import type { Valkey } from 'iovalkey';
import { CORE_TRANSITIONS, TRANSITIONS } from '../executors/transitions.ts';

export const EXPLORER_USER = 'explorer';

const CONNECTION = ['ping', 'select', 'client|info', 'client|setinfo', 'client|setname', 'info', 'quit'];
const FENCE = ['get', 'set'];
const SCRIPTED = ['evalsha', 'script|load'];
/** What the Lua scripts call, checked by the server against this user too. */
const IN_SCRIPTS = [
  'time',
  'exists',
  'del',
  'hset',
  'hget',
  'hincrby',
  'zadd',
  'zrem',
  'zpopmin',
  'zrangebyscore',
  'lpos',
  'sismember',
  'rpush',
];
const VIEW = ['scan', 'type', 'hgetall', 'zrange', 'lrange', 'smembers', 'dbsize', 'flushdb'];
const CLUSTER = ['cluster|keyslot'];
/** The console's reads beyond the ones above (server/experiments/console/allow-list.ts). */
const CONSOLE = ['zscore', 'ttl', 'echo'];

export function explorerRules(password: string, withNative: boolean): string[] {
  const commands = [...CONNECTION, ...FENCE, ...SCRIPTED, ...IN_SCRIPTS, ...VIEW, ...CLUSTER, ...CONSOLE];
  const rules = ['reset', 'on', `>${password}`, '~emq:*', '~{emq}:*', 'resetchannels', '-@all'];
  rules.push(...commands.map((command) => `+${command}`));
  if (withNative) {
    // A selector lets the EMQ.* commands take any key, so an edited key reaches the module's own layout
    // check (which refuses it, naming the byte, and writes nothing) instead of stopping at the ACL.
    const native = CORE_TRANSITIONS.map((name) => `+${TRANSITIONS[name].command.toLowerCase()}`);
    rules.push(`(~* ${native.join(' ')})`);
  }
  return rules;
}

export function newPassword(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * Creates (or resets) the explorer user on a server, through an admin connection. Answers whether the
 * server has the native module loaded, since the user's rules depend on it.
 */
export async function installExplorerUser(admin: Valkey, password: string): Promise<boolean> {
  const modules = (await admin.call('MODULE', 'LIST')) as unknown[];
  const withNative = JSON.stringify(modules).includes('trafikey');
  await admin.call('ACL', 'SETUSER', EXPLORER_USER, ...explorerRules(password, withNative));
  return withNative;
}
