// Each core transition has one declared key list and one argument list, shared by both executors:
// the scripted executor sends `EVALSHA <sha> <numkeys> <keys…> <args…>`, the native module takes
// `EMQ.<VERB> <numkeys> <keys…> <args…>`. Swapping executors changes the verb alone.

export const TRANSITIONS = {
  enqueue: {
    script: 'enqueue-2.lua',
    command: 'EMQ.ENQUEUE',
    keys: ['row', 'pending'],
    args: ['id', 'payload'],
  },
  schedule: {
    script: 'schedule-2.lua',
    command: 'EMQ.SCHEDULE',
    keys: ['row', 'schedule'],
    args: ['id', 'payload', 'run_at_ms'],
  },
  claim: {
    script: 'claim-3.lua',
    command: 'EMQ.CLAIM',
    keys: ['pending', 'active', 'row base'],
    args: ['lease_ms'],
  },
  complete: {
    script: 'complete-3.lua',
    command: 'EMQ.COMPLETE',
    keys: ['active', 'row', 'metrics:completed'],
    args: ['id', 'token'],
  },
  retry: {
    script: 'retry-5.lua',
    command: 'EMQ.RETRY',
    keys: ['active', 'schedule', 'dead', 'row', 'metrics:failed'],
    args: ['id', 'token', 'delay_ms', 'max_attempts', 'error'],
  },
  promote: {
    script: 'promote-3.lua',
    command: 'EMQ.PROMOTE',
    keys: ['schedule', 'pending', 'row base'],
    args: ['batch'],
  },
  reap: {
    script: 'reap-3.lua',
    command: 'EMQ.REAP',
    keys: ['active', 'pending', 'row base'],
    args: ['batch'],
  },
  laneEnqueue: {
    script: 'lane-enqueue-6.lua',
    // Lanes are an admission verb; the protocol leaves their native command optional.
    command: null,
    keys: ['row', 'lane pending', 'ring', 'paused', 'glimit', 'gactive'],
    args: ['id', 'payload', 'group'],
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
