// The admission check. The admission verbs (enqueue, enqueue-many, lane enqueue) run it before any
// command reaches the server, so a name that would break the grammar never becomes a key.

import { hasLoneSurrogate, utf8 } from './bytes.ts';
import { KeyspaceError } from './errors.ts';

const ALLOWED = "a queue name is one or more bytes of UTF-8, any byte but '{', '}' and NUL";

const FORBIDDEN: Record<number, { code: 'BRACE' | 'NUL'; shown: string }> = {
  0x7b: { code: 'BRACE', shown: "'{' (0x7b)" },
  0x7d: { code: 'BRACE', shown: "'}' (0x7d)" },
  0x00: { code: 'NUL', shown: 'NUL (0x00)' },
};

/**
 * Throws a KeyspaceError naming the offending byte and its offset when `queue` cannot be a queue name.
 * A brace would move the hashtag; NUL cuts C strings short; an empty name has no hashtag at all
 * (`emq:{}:pending` hashes whole), so its keys would scatter over slots.
 */
export function validQueue(queue: string): void {
  if (queue.length === 0) {
    throw new KeyspaceError('EMPTY_QUEUE', `invalid queue name: it is empty; ${ALLOWED}`, 0);
  }
  if (hasLoneSurrogate(queue)) {
    throw new KeyspaceError(
      'NOT_UTF8',
      `invalid queue name: it is not valid UTF-8 (a lone surrogate); ${ALLOWED}`,
    );
  }
  const bytes = utf8(queue);
  for (let offset = 0; offset < bytes.length; offset += 1) {
    const forbidden = FORBIDDEN[bytes[offset]!];
    if (forbidden) {
      throw new KeyspaceError(
        forbidden.code,
        `invalid queue name: byte ${offset} is ${forbidden.shown}; ${ALLOWED}`,
        offset,
      );
    }
  }
}
