// The reserve experiment's steps, in order: the page shows them as the plan before a run, and the server
// runs them under the same names, so the two cannot drift apart.

import { TRANSITIONS } from '../transitions.ts';

export interface ReservePlanStep {
  keyspace: 'A' | 'B';
  actor: string;
  action: string;
}

const enqueue = TRANSITIONS.enqueue.command;

export const RESERVE_STEPS = {
  claim: {
    keyspace: 'A',
    actor: 'wire 4 connector',
    action: 'connects to a fresh keyspace and claims the identity',
  },
  writeClaimed: {
    keyspace: 'A',
    actor: 'native write',
    action: `${enqueue} on the keyspace a wire 4 connector claimed`,
  },
  readUninstalled: {
    keyspace: 'B',
    actor: 'wire 6 connector',
    action: 'connects to a fresh keyspace: it only reads',
  },
  install: { keyspace: 'B', actor: 'operator', action: 'installs the identity administratively' },
  readInstalled: {
    keyspace: 'B',
    actor: 'wire 6 connector',
    action: 'connects again and reads the installed identity',
  },
  writeInstalled: { keyspace: 'B', actor: 'native write', action: `${enqueue} on the installed keyspace` },
  refuseNative: { keyspace: 'B', actor: 'wire 4 connector', action: 'tries the native keyspace' },
} as const satisfies Record<string, ReservePlanStep>;

/** Every step in the order it runs (the native writes only where the module is loaded). */
export const RESERVE_PLAN: ReservePlanStep[] = Object.values(RESERVE_STEPS);
