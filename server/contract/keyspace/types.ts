// The closed type registry: every per-queue key type the protocol writes, and nothing else.

/** A value type as Valkey's `TYPE` names it. */
export type ValueType = 'hash' | 'zset' | 'list' | 'set' | 'string';

/** Fixed types, each the tail of `emq:{q}:<type>`: the Valkey value it holds, and what for. */
export const KEY_TYPES = {
  pending: { value: 'zset', holds: 'ready jobs, score 0, members sort by bytes (= mint order)' },
  active: { value: 'zset', holds: 'claimed jobs, score = lease deadline in server ms' },
  schedule: { value: 'zset', holds: 'delayed jobs, score = run-at in ms' },
  dead: { value: 'zset', holds: 'jobs out of attempts, score 0' },
  meta: { value: 'hash', holds: 'queue settings (paused)' },
  'job:': { value: 'hash', holds: 'one per job, the row base: state, attempts, payload, last_error, group' },
  'metrics:completed': { value: 'hash', holds: 'field count' },
  'metrics:failed': { value: 'hash', holds: 'field count' },
  ring: { value: 'list', holds: 'groups ready to serve' },
  paused: { value: 'set', holds: 'paused groups' },
  glimit: { value: 'hash', holds: 'group → concurrency limit' },
  gactive: { value: 'hash', holds: 'group → jobs active' },
  wake: { value: 'list', holds: 'wake-up signals for lanes' },
} as const satisfies Record<string, { value: ValueType; holds: string }>;

export type FixedKeyType = keyof typeof KEY_TYPES;

/** A lane's pending set, `g:<group>:pending`, where the group is a branded id. */
export type LaneKeyType = `g:${string}:pending`;

export type KeyType = FixedKeyType | LaneKeyType;

export function isFixedKeyType(type: string): type is FixedKeyType {
  return Object.hasOwn(KEY_TYPES, type);
}
