// What a console line is checked with, whatever its command: its bytes read as the server reads them,
// a whole number as the server reads one, the keys a numkeys-style call declares, and what a key must
// be (the namespace for a read, the grammar for a write). Free of Node APIs.

import { catalogueText, quoted } from '../catalogue/catalogue-text.ts';
import {
  isBrandedId,
  isFixedKeyType,
  jobKey,
  PREFIX,
  queueKey,
  RESERVE_BASE,
  splitQueueKey,
  validQueue,
} from '../keyspace/index.ts';
import type { CoreTransition } from '../transitions.ts';
import { NAMESPACE } from './key-forms.ts';

/** Where a console line runs: a fresh standalone keyspace of the run's own, or the shared cluster. */
export type Node = 'standalone' | 'cluster';

export interface Planned {
  ok: true;
  /** What the reader typed, upper-cased: EMQ.CLAIM, SCRIPT CLAIM, GET… */
  command: string;
  /** For SCRIPT <verb>: the transition whose script runs. */
  script?: CoreTransition;
  argv: Uint8Array[];
  keys: Uint8Array[];
  node: Node;
  writes: boolean;
}

export interface Refused {
  ok: false;
  code: 'NOT_ALLOWED' | 'BAD_ARGUMENTS' | 'KEY_NOT_ALLOWED' | 'BAD_QUOTING';
  command: string;
  message: string;
}

const decoder = new TextDecoder();
export const text = (bytes: Uint8Array | undefined): string => (bytes ? decoder.decode(bytes) : '');
/**
 * ASCII upper case only: JavaScript's Unicode upper-casing turns `ſcan` into `SCAN` and `ı` into `I`,
 * which would let a name the server does not know pass the list as one it does.
 */
export const upper = (bytes: Uint8Array): string =>
  text(bytes).replace(/[a-z]+/g, (letters) => letters.toUpperCase());
/** Whether the bytes are exactly the UTF-8 of `b` (no invalid byte decoded into a replacement). */
export const sameBytes = (a: Uint8Array, b: string): boolean =>
  text(a) === b && new TextEncoder().encode(b).length === a.length;

export function bad(command: string, message: string, code: Refused['code'] = 'BAD_ARGUMENTS'): Refused {
  return { ok: false, code, command, message: `${command}: ${message}` };
}

/**
 * A whole number as the server reads one (its strict string2ll, and the native module's
 * parse_integer): `0`, or an optional `-` then digits without a leading zero, at most 20 characters.
 * Nothing else — no `+`, `02`, `-0`, blank, point or `0x` — is a number to the server. (Its key finder
 * for EVAL and EVALSHA reads numkeys with atoi, which takes `+2`, `02`, ` 2` and `2.0` as 2: a spelling
 * the command itself refuses still has its keys checked and routed as if it were 2.)
 */
const WHOLE_NUMBER = /^(0|-?[1-9][0-9]{0,18})$/;

/** A whole number the server reads, small enough to compare (at most 9 digits), or null. */
export function integer(bytes: Uint8Array | undefined): number | null {
  if (!bytes) return null;
  const shown = text(bytes);
  return WHOLE_NUMBER.test(shown) && shown.replace('-', '').length <= 9 ? Number(shown) : null;
}

/** The keys a numkeys-style call declares, when numkeys is a count that fits the arguments. */
export function declaredKeys(args: readonly Uint8Array[]): Uint8Array[] {
  const numkeys = integer(args[0]);
  if (numkeys === null || numkeys < 0 || numkeys > args.length - 1) return [];
  return args.slice(1, 1 + numkeys);
}

/**
 * The refusal of a numkeys the server would not read as a number, or null: it is refused here, before
 * any server, rather than sent with no keys declared (it would have its keys unchecked by the
 * allow-list and, on the cluster, take no slot's turn, while the server's key finder reads it as a count).
 */
export function numkeysSpelling(command: string, numkeys: Uint8Array | undefined): Refused | null {
  if (numkeys === undefined) return null;
  const shown = text(numkeys);
  if (WHOLE_NUMBER.test(shown) && sameBytes(numkeys, shown)) return null;
  const plain = /^\s*\+?0*([0-9]+)(\.0*)?\s*$/.exec(shown);
  const instead = plain ? ` (write ${Number(plain[1])})` : '';
  return bad(
    command,
    `numkeys is ${JSON.stringify(shown)}, which the server does not read as a number: write it as plain decimal digits, with no "+", leading zero, blank, point or 0x${instead}`,
  );
}

/** The sandbox account reaches only the namespace's keys and the reserve's. */
export function inNamespace(key: Uint8Array): boolean {
  const shown = text(key);
  return (shown.startsWith(PREFIX) || shown.startsWith(RESERVE_BASE)) && sameBytes(key, shown);
}

/** A key the grammar builds: a fixed type, a job row with a branded id, or a lane of a branded group. */
export function isGrammarKey(key: Uint8Array): boolean {
  const shown = text(key);
  if (!sameBytes(key, shown)) return false;
  const parts = splitQueueKey(shown);
  if (!parts) return false;
  try {
    validQueue(parts.queue);
  } catch {
    return false;
  }
  if (isFixedKeyType(parts.type) && parts.type !== 'job:') return queueKey(parts.queue, parts.type) === shown;
  if (parts.type.startsWith('job:')) {
    const id = parts.type.slice(4);
    return isBrandedId(id) && jobKey(parts.queue, id) === shown;
  }
  const lane = /^g:(.{14}):pending$/s.exec(parts.type);
  return lane !== null && isBrandedId(lane[1]!);
}

/** What a command's keys must be: in the namespace (a read), of the grammar (a write), or any key. */
export type KeyRule = 'namespace' | 'grammar' | 'any';

/** The refusal of the first key outside `rule`, offering `example` (a key the command takes), or null. */
export function keysOutside(
  command: string,
  keys: readonly Uint8Array[],
  rule: KeyRule,
  example: (typed: string) => string,
): Refused | null {
  if (rule === 'any') return null;
  const check = rule === 'grammar' ? isGrammarKey : inNamespace;
  const outside = keys.find((key) => !check(key));
  if (!outside) return null;
  const such = example(text(outside));
  const what =
    rule === 'grammar'
      ? `it writes only keys of the grammar, emq:{<queue>}:<type> or a job row emq:{<queue>}:job:<branded id>, such as ${such}`
      : `it reads only keys that start with ${NAMESPACE}, such as ${such}`;
  const message = catalogueText('KEY_NOT_ALLOWED', {
    command,
    key: quoted(text(outside)),
    'reads or writes': rule === 'grammar' ? 'writes' : 'reads',
    'what it takes, with an example': what,
  });
  return { ok: false, code: 'KEY_NOT_ALLOWED', command, message };
}
