// Each core transition has one declared key list and one argument list, shared by both executors:
// the scripted executor sends `EVALSHA <sha> <numkeys> <keys…> <args…>`, the native module takes
// `EMQ.<VERB> <numkeys> <keys…> <args…>`. Swapping executors changes the verb alone.
// Keys are written as the fixture writes them, each the type after `emq:{q}:`: `job:<id>` is the row
// of the job named by the `id` argument, `job:` the row base, `g:<group>:pending` the lane of `group`.
// `reply` is what the call answers (docs/wire.md's transition table is written from this one by
// scripts/wire-doc.ts). `callFor` (calls.ts) builds every call from this table; `admits` marks the
// admission verbs, which refuse a bad queue name before anything is sent.

export const TRANSITIONS = {
  enqueue: {
    script: 'enqueue-2.lua',
    command: 'EMQ.ENQUEUE',
    admits: true,
    keys: ['job:<id>', 'pending'],
    args: ['id', 'payload'],
    reply: 'integer `1` new, `0` duplicate',
  },
  schedule: {
    script: 'schedule-2.lua',
    command: 'EMQ.SCHEDULE',
    admits: true,
    keys: ['job:<id>', 'schedule'],
    args: ['id', 'payload', 'run_at_ms'],
    reply: 'integer `1` new, `0` duplicate',
  },
  claim: {
    script: 'claim-3.lua',
    command: 'EMQ.CLAIM',
    admits: false,
    keys: ['pending', 'active', 'job:'],
    args: ['lease_ms'],
    reply: 'nil, or array `[id (bulk), payload (bulk), attempts (integer)]`',
  },
  complete: {
    script: 'complete-3.lua',
    command: 'EMQ.COMPLETE',
    admits: false,
    keys: ['active', 'job:<id>', 'metrics:completed'],
    args: ['id', 'token'],
    reply: 'integer `1` done, `0` no row',
  },
  retry: {
    script: 'retry-5.lua',
    command: 'EMQ.RETRY',
    admits: false,
    keys: ['active', 'schedule', 'dead', 'job:<id>', 'metrics:failed'],
    args: ['id', 'token', 'delay_ms', 'max_attempts', 'error'],
    reply: 'bulk `scheduled` or `dead`; integer `0` no row',
  },
  promote: {
    script: 'promote-3.lua',
    command: 'EMQ.PROMOTE',
    admits: false,
    keys: ['schedule', 'pending', 'job:'],
    args: ['batch'],
    reply: 'integer: ids moved',
  },
  reap: {
    script: 'reap-3.lua',
    command: 'EMQ.REAP',
    admits: false,
    keys: ['active', 'pending', 'job:'],
    args: ['batch'],
    reply: 'integer: ids moved',
  },
  laneEnqueue: {
    script: 'lane-enqueue-6.lua',
    // Lanes are an admission verb; the protocol leaves their native command optional.
    command: null,
    admits: true,
    keys: ['job:<id>', 'g:<group>:pending', 'ring', 'paused', 'glimit', 'gactive'],
    args: ['id', 'payload', 'group'],
    reply: 'integer `1` new, `0` duplicate',
  },
} as const;

export type TransitionName = keyof typeof TRANSITIONS;

/** The transitions both executors carry. */
export const CORE_TRANSITIONS = [
  'enqueue',
  'schedule',
  'claim',
  'complete',
  'retry',
  'promote',
  'reap',
] as const;
export type CoreTransition = (typeof CORE_TRANSITIONS)[number];

/** One transition, ready for the wire: the declared keys and the arguments, in order. */
export interface Call {
  transition: TransitionName;
  keys: string[];
  args: string[];
}

/** What a transition replies: an integer, a bulk string, nil, or claim's [id, payload, attempts]. */
export type Reply = number | string | null | [string, string, number];
