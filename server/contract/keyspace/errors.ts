// Errors raised before anything reaches the wire. Each one says what was found and what is allowed.

import { StacklessError } from '../stackless-error.ts';

export type KeyspaceErrorCode = 'EMPTY_QUEUE' | 'BRACE' | 'NUL' | 'NOT_UTF8' | 'BAD_ID' | 'BAD_TYPE';

export class KeyspaceError extends StacklessError {
  readonly code: KeyspaceErrorCode;
  /** Byte offset of the offending byte, where there is one. */
  readonly offset: number | undefined;

  constructor(code: KeyspaceErrorCode, message: string, offset?: number) {
    super(message);
    this.name = 'KeyspaceError';
    this.code = code;
    this.offset = offset;
  }
}
