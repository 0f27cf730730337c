// Builds every transition's call from the transition table: its declared keys from the keyspace, its
// arguments in the table's order. The admission verbs run the admission check here, before anything
// can reach a server.

import { jobKey, laneKey, queueKey, rowBase, validQueue, type FixedKeyType } from './keyspace/index.ts';
import { TRANSITIONS, type Call, type TransitionName } from './transitions.ts';

type ArgName = (typeof TRANSITIONS)[TransitionName]['args'][number];
/** The arguments that are whole numbers on the wire. */
type CountName = 'run_at_ms' | 'lease_ms' | 'delay_ms' | 'max_attempts' | 'batch';
type ArgValue<A extends ArgName> = A extends CountName
  ? number
  : A extends 'token'
    ? number | string
    : string;

/** A transition's arguments by their names in the table, e.g. `{ id, token, delay_ms, max_attempts, error }`. */
export type CallArgs<T extends TransitionName> = {
  [A in (typeof TRANSITIONS)[T]['args'][number]]: ArgValue<A>;
};

const COUNTS: ReadonlySet<string> = new Set<CountName>([
  'run_at_ms',
  'lease_ms',
  'delay_ms',
  'max_attempts',
  'batch',
]);

/** A whole number 0..2^53-1 as a wire argument, or a RangeError naming the argument. */
function count(name: string, value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `${name} must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, found ${value}`,
    );
  }
  return String(value);
}

/** One declared key from its notation in the table. */
function keyFor(notation: string, queue: string, args: Record<string, unknown>): string {
  if (notation === 'job:<id>') return jobKey(queue, String(args.id));
  if (notation === 'g:<group>:pending') return laneKey(queue, String(args.group));
  if (notation === 'job:') return rowBase(queue);
  return queueKey(queue, notation as FixedKeyType);
}

/** The call of `transition` on `queue`: keys and arguments exactly as the table declares them. */
export function callFor<T extends TransitionName>(transition: T, queue: string, args: CallArgs<T>): Call {
  const declared = TRANSITIONS[transition];
  if (declared.admits) validQueue(queue);
  const named = args as Record<string, number | string>;
  return {
    transition,
    keys: declared.keys.map((notation) => keyFor(notation, queue, named)),
    args: declared.args.map((name) => {
      const value = named[name]!;
      return COUNTS.has(name) ? count(name, value as number) : String(value);
    }),
  };
}
