// The braced grammar: every per-queue key is `emq:{q}:<type>`. This is the only place a key is composed.

import { assertBrandedId } from './branded-id.ts';
import { KeyspaceError } from './errors.ts';
import { slot } from './hashtag.ts';
import { RESERVE_BASE, versionKey } from './reserve.ts';
import { isFixedKeyType, KEY_TYPES, type FixedKeyType, type KeyType, type ValueType } from './types.ts';

export const PREFIX = 'emq:';

/** `emq:{q}:<type>` — the braces make the queue name the hashtag, so one queue is one slot. */
export function queueKey(queue: string, type: KeyType): string {
  if (!isFixedKeyType(type) && !isLaneType(type)) {
    throw new KeyspaceError(
      'BAD_TYPE',
      `unknown key type ${JSON.stringify(type)}: the type registry is closed`,
    );
  }
  return queuePrefix(queue) + type;
}

/** `emq:{q}:` — what every key of the queue starts with: a queue key is this and its type. */
export function queuePrefix(queue: string): string {
  return `${PREFIX}{${queue}}:`;
}

/**
 * The slot every key of the queue lands on: its pending set's (the name is the hashtag; an empty name
 * has none, and then each key hashes whole, so the pending set's is the one the runs use).
 */
export function queueSlot(queue: string): number {
  return slot(queueKey(queue, 'pending'));
}

/** A glob's special bytes (`*`, `?`, `[`, `]` and `\`) escaped: the name matches only itself in MATCH. */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, (byte) => `\\${byte}`);
}

/** `emq:{q}:*` — the pattern (SCAN MATCH, KEYS) of every key of one queue, the name taken literally. */
export function queuePattern(queue: string): string {
  return `${globLiteral(queuePrefix(queue))}*`;
}

/** `emq:*` — the pattern of every queue key of the namespace. */
export function namespacePattern(): string {
  return `${PREFIX}*`;
}

/** `{emq}:*` — the pattern of every reserve key. */
export function reservePattern(): string {
  return `${RESERVE_BASE}*`;
}

/**
 * Every fixed-type key of a queue, in the registry's order: what a queue can own besides its rows and
 * lanes. The row base `job:` is left out: it is a prefix the scripts derive rows from (see rowBase),
 * never a key that is stored.
 */
export function queueKeys(queue: string): Array<{ type: FixedKeyType; key: string }> {
  return (Object.keys(KEY_TYPES) as FixedKeyType[])
    .filter((type) => type !== 'job:')
    .map((type) => ({ type, key: queueKey(queue, type) }));
}

/** `emq:{q}:job:` — the declared base a script derives a job row from, on the queue's slot. */
export function rowBase(queue: string): string {
  return queueKey(queue, 'job:');
}

/** `emq:{q}:job:<id>` — the job row. Throws before any wire when `id` is not a branded id. */
export function jobKey(queue: string, id: string): string {
  assertBrandedId(id, 'job id');
  return rowBase(queue) + id;
}

/** `emq:{q}:g:<group>:pending` — one lane of a queue; the group is a branded id. */
export function laneKey(queue: string, group: string): string {
  assertBrandedId(group, 'group');
  return queueKey(queue, `g:${group}:pending`);
}

function isLaneType(type: string): boolean {
  const match = /^g:(.*):pending$/s.exec(type);
  return match !== null && match[1]!.length === 14;
}

/** The segments of a per-queue key, as the grammar composes them. */
export interface QueueKeyParts {
  prefix: string;
  open: string;
  queue: string;
  close: string;
  type: string;
}

/**
 * Reads a key back into its segments: `emq:`, `{`, the name (up to the first `}`), `}:`, the type.
 * Null when the key is not in the grammar. The name may be empty here: saying so is the caller's job.
 */
export function splitQueueKey(key: string): QueueKeyParts | null {
  if (!key.startsWith(`${PREFIX}{`)) return null;
  const close = key.indexOf('}', PREFIX.length + 1);
  if (close < 0 || key[close + 1] !== ':') return null;
  return {
    prefix: PREFIX,
    open: '{',
    queue: key.slice(PREFIX.length + 1, close),
    close: '}:',
    type: key.slice(close + 2),
  };
}

/** The Valkey type a key holds where the layout places it, or undefined for a key it does not place. */
export function layoutValueType(key: string): ValueType | undefined {
  if (key === versionKey()) return 'string';
  const type = splitQueueKey(key)?.type;
  if (type === undefined) return undefined;
  if (type.startsWith('job:')) return KEY_TYPES['job:'].value;
  if (isLaneType(type)) return KEY_TYPES.pending.value;
  return isFixedKeyType(type) ? KEY_TYPES[type].value : undefined;
}
