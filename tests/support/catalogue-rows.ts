// Finding the catalogue rows a message is an instance of: a test's way of asking "which row said this?"
// of a message a real server, the API or a failure produced (server/contract/catalogue/error-codes.ts).

import { ERROR_CODES, type ErrorCode } from '../../server/contract/catalogue/error-codes.ts';

/** A text as a pattern that matches every message it stands for: each `<name>` is any run, the empty one too. */
export function textPattern(text: string): RegExp {
  const parts = text.split(/<[^<>]+>/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*?')}$`, 's');
}

/** The catalogue rows a message fits: same code, and the text's pattern matches the whole message. */
export function rowsFor(code: string, message: string): ErrorCode[] {
  return ERROR_CODES.filter((e) => e.code === code && textPattern(e.text).test(message));
}
