// Validation of a reader's input. Each refusal says which field was wrong, what was found and what is
// allowed; nothing reaches a server before the whole input has passed.

import { KeyspaceError, utf8, validQueue } from '../contract/keyspace/index.ts';
import { LIMITS } from '../contract/limits.ts';
import { StacklessError } from '../contract/stackless-error.ts';

/** A reader's input refused: answered 400, never logged, so it keeps no stack. */
export class InputError extends StacklessError {
  readonly field: string;

  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'InputError';
    this.field = field;
  }
}

export type Body = Record<string, unknown>;

/** What was found, in words: "a number", "an object", "nothing" (never "a undefined"). */
function kind(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing (the field is missing)';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The body must be a JSON object holding only `allowed` fields. */
export function fields(body: unknown, allowed: readonly string[]): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InputError('body', `expected a JSON object, found ${kind(body)}`);
  }
  const unknown = Object.keys(body).filter((name) => !allowed.includes(name));
  if (unknown.length > 0) {
    const list = allowed.length ? allowed.join(', ') : 'none';
    throw new InputError(unknown[0]!, `unknown field; the fields allowed are: ${list}`);
  }
  return body as Body;
}

/** A string of well-formed UTF-8 of at most `maxBytes` bytes. */
export function text(body: Body, field: string, maxBytes: number): string;
export function text(body: Body, field: string, maxBytes: number, optional: true): string | undefined;
export function text(body: Body, field: string, maxBytes: number, optional = false): string | undefined {
  const value = body[field];
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string') throw new InputError(field, `expected a string, found ${kind(value)}`);
  if (!value.isWellFormed()) throw new InputError(field, 'is not valid UTF-8 (it holds a lone surrogate)');
  const bytes = utf8(value).length;
  if (bytes > maxBytes)
    throw new InputError(field, `is ${bytes} bytes long; at most ${maxBytes} are allowed`);
  return value;
}

export function oneOf<T extends string>(body: Body, field: string, values: readonly T[], fallback?: T): T {
  const value = body[field] ?? fallback;
  if (typeof value !== 'string' || !values.includes(value as T)) {
    const found = typeof value === 'string' ? JSON.stringify(value) : kind(value);
    throw new InputError(field, `expected one of ${values.join(', ')}, found ${found}`);
  }
  return value as T;
}

/** A number that must be one of `values` (a JSON number; "1000" as a string is refused). */
export function numberOneOf<T extends number>(
  body: Body,
  field: string,
  values: readonly T[],
  fallback?: T,
): T {
  // Absent takes the fallback; null is a value, and refused.
  const value = body[field] === undefined ? fallback : body[field];
  if (typeof value !== 'number' || !values.includes(value as T)) {
    const found = typeof value === 'number' ? String(value) : kind(value);
    const what = typeof value === 'string' ? `${found} ${JSON.stringify(value)}` : found;
    throw new InputError(field, `expected one of ${values.join(', ')}, found ${what}`);
  }
  return value as T;
}

/** An array of at most `max` items, each checked by `item`. */
export function list<T>(
  body: Body,
  field: string,
  max: number,
  item: (value: unknown, where: string) => T,
): T[] | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new InputError(field, `expected an array, found ${kind(value)}`);
  if (value.length > max)
    throw new InputError(field, `has ${value.length} items; at most ${max} are allowed`);
  return value.map((entry, i) => item(entry, `${field}[${i}]`));
}

/** One string item of a list, with the same rules as text(). */
export function textItem(maxBytes: number) {
  return (value: unknown, where: string): string => text({ [where]: value }, where, maxBytes);
}

/** An optional queue name that must pass the admission check; its refusal becomes an input error. */
export function queueName(body: Body, field: string, fallback: string): string {
  const queue = text(body, field, LIMITS.queueBytes, true) ?? fallback;
  try {
    validQueue(queue);
  } catch (error) {
    if (error instanceof KeyspaceError) throw new InputError(field, error.message);
    throw error;
  }
  return queue;
}
