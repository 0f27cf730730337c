// Branded ids: a 3-letter namespace + 11 base62 characters holding a 63-bit snowflake.
// Fixed width and an alphabet in ASCII order make byte order equal numeric order equal mint order.

import { KeyspaceError } from './errors.ts';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const ID_LENGTH = 14;
export const EPOCH_MS = Date.UTC(2024, 0, 1);
export const MAX_ID_VALUE = (1n << 63n) - 1n;
const NODE_BITS = 10n;
const SEQ_BITS = 12n;
const MAX_SEQ = (1 << Number(SEQ_BITS)) - 1;
const MAX_NODE = (1 << Number(NODE_BITS)) - 1;

export interface BrandedId {
  namespace: string;
  value: bigint;
}

/** Why `id` is not a branded id, or undefined when it is one. */
function problemWith(id: string): string | undefined {
  if (id.length !== ID_LENGTH) return `it has ${id.length} characters, a branded id has ${ID_LENGTH}`;
  if (!/^[A-Z]{3}$/.test(id.slice(0, 3))) return `its namespace '${id.slice(0, 3)}' is not 3 letters A-Z`;
  const bad = [...id.slice(3)].findIndex((ch) => !BASE62.includes(ch));
  if (bad >= 0) return `character ${bad + 3} is not base62 (0-9, A-Z, a-z)`;
  if (decodeBase62(id.slice(3)) > MAX_ID_VALUE)
    return 'its payload is above 2^63-1 (the largest is AzL8n0Y58m7)';
  return undefined;
}

function decodeBase62(body: string): bigint {
  let value = 0n;
  for (const ch of body) value = value * 62n + BigInt(BASE62.indexOf(ch));
  return value;
}

export function isBrandedId(id: string): boolean {
  return problemWith(id) === undefined;
}

/** Throws a KeyspaceError that says why, when `id` is not a branded id. */
export function assertBrandedId(id: string, what = 'id'): void {
  const problem = problemWith(id);
  if (problem) throw new KeyspaceError('BAD_ID', `invalid ${what} ${JSON.stringify(id)}: ${problem}`);
}

export function parseId(id: string): BrandedId {
  assertBrandedId(id);
  return { namespace: id.slice(0, 3), value: decodeBase62(id.slice(3)) };
}

/** Five base62 digits fit a Number exactly: an id's eleven are 1 + 5 + 5 of them. */
const FIVE_DIGITS = 62n ** 5n;

/** `n` (a Number below 62^width) as `width` base62 digits. */
function digits(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i += 1, n = Math.floor(n / 62)) out = BASE62[n % 62] + out;
  return out;
}

export function formatId(namespace: string, value: bigint): string {
  if (value < 0n || value > MAX_ID_VALUE) throw new RangeError(`id value ${value} is outside 0..2^63-1`);
  // Two BigInt divisions instead of eleven: a reshard's fill mints 20,000 ids at a click.
  const high = value / FIVE_DIGITS;
  const id =
    namespace +
    digits(Number(high / FIVE_DIGITS), 1) +
    digits(Number(high % FIVE_DIGITS), 5) +
    digits(Number(value % FIVE_DIGITS), 5);
  // A value in range makes a valid body: only the namespace can be wrong, and is said as before.
  if (!/^[A-Z]{3}$/.test(namespace)) assertBrandedId(id);
  return id;
}

/** The snowflake fields of an id: when it was minted, by which node, in which sequence. */
export function describeId(id: string): {
  namespace: string;
  mintedAt: Date;
  node: number;
  sequence: number;
} {
  const { namespace, value } = parseId(id);
  const ms = Number(value >> (NODE_BITS + SEQ_BITS));
  return {
    namespace,
    mintedAt: new Date(EPOCH_MS + ms),
    node: Number((value >> SEQ_BITS) & BigInt(MAX_NODE)),
    sequence: Number(value & BigInt(MAX_SEQ)),
  };
}

/**
 * Mints ids that only go up inside one process: within one millisecond the sequence counts,
 * and a clock that steps back keeps the last millisecond instead of going back with it.
 */
export class IdMinter {
  readonly node: number;
  private readonly clock: () => number;
  private lastMs = -1;
  private sequence = 0;

  constructor(node = 0, clock: () => number = Date.now) {
    if (!Number.isInteger(node) || node < 0 || node > MAX_NODE) {
      throw new RangeError(`node must be an integer 0..${MAX_NODE}, found ${node}`);
    }
    this.node = node;
    this.clock = clock;
  }

  mint(namespace = 'JOB'): string {
    let ms = Math.max(this.clock() - EPOCH_MS, this.lastMs);
    if (ms === this.lastMs) {
      this.sequence += 1;
      // A full millisecond borrows the next one rather than repeat an id.
      if (this.sequence > MAX_SEQ) {
        ms += 1;
        this.sequence = 0;
      }
    } else {
      this.sequence = 0;
    }
    this.lastMs = ms;
    const value =
      (BigInt(ms) << (NODE_BITS + SEQ_BITS)) | (BigInt(this.node) << SEQ_BITS) | BigInt(this.sequence);
    return formatId(namespace, value);
  }
}

const processMinter = new IdMinter();

/** A fresh job id from this process's minter. */
export function mintJobId(): string {
  return processMinter.mint('JOB');
}
