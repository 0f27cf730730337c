// The closed type registry: every per-queue key type the protocol writes, and nothing else.

/** Fixed types, each the tail of `emq:{q}:<type>`. */
export const KEY_TYPES = {
  pending: 'sorted set: ready jobs, score 0, members sort by bytes (= mint order)',
  active: 'sorted set: claimed jobs, score = lease deadline in server ms',
  schedule: 'sorted set: delayed jobs, score = run-at in ms',
  dead: 'sorted set: jobs out of attempts, score 0',
  meta: 'hash: queue settings (paused)',
  'job:': 'hash per job, the row base: state, attempts, payload, last_error, group',
  'metrics:completed': 'hash: field count',
  'metrics:failed': 'hash: field count',
  ring: 'list: groups ready to serve',
  paused: 'set: paused groups',
  glimit: 'hash: group → concurrency limit',
  gactive: 'hash: group → jobs active',
  wake: 'list: wake-up signals for lanes',
} as const;

export type FixedKeyType = keyof typeof KEY_TYPES;

/** A lane's pending set, `g:<group>:pending`, where the group is a branded id. */
export type LaneKeyType = `g:${string}:pending`;

export type KeyType = FixedKeyType | LaneKeyType;

export function isFixedKeyType(type: string): type is FixedKeyType {
  return Object.hasOwn(KEY_TYPES, type);
}
