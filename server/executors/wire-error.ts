// An error reply from the server, kept whole: its class is the first word (EMQKIND, EMQSTALE,
// EMQKEY, EMQWIRE, NOSCRIPT, CROSSSLOT, ERR…) and the message says what was found and expected.

import { StacklessError } from '../contract/stackless-error.ts';

export class WireError extends StacklessError {
  readonly errorClass: string;

  constructor(message: string) {
    super(message);
    this.name = 'WireError';
    this.errorClass = message.split(' ', 1)[0] ?? '';
  }

  /** The server's error replies arrive as iovalkey's ReplyError; anything else is not ours to wrap. */
  static from(error: unknown): unknown {
    if (error instanceof Error && error.name === 'ReplyError') return new WireError(error.message);
    return error;
  }
}

/** Whether `error` is the server's error reply: iovalkey's ReplyError, or one wrapped as a WireError. */
export function isReplyError(error: unknown): error is Error {
  return error instanceof Error && (error.name === 'ReplyError' || error instanceof WireError);
}

/**
 * What `run` resolves to, or the WireError the server refused it with, as a value (the way `runMany`
 * reports each call); anything else is not a refusal and is thrown on.
 */
export async function settle<T>(run: () => Promise<T>): Promise<T | WireError> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof WireError) return error;
    throw error;
  }
}
