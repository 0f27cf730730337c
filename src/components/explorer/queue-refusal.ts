// One bad queue name, one answer in every experiment: the API's byte cap and the host's own admission
// check (validQueue, the real keyspace module), run in the browser before anything is sent, and shown
// the same way wherever a name is typed: the code, the key it would have made, and an empty wire.
// Free of Node and DOM APIs.

import {
  hashtag,
  KeyspaceError,
  queueKey,
  slot,
  utf8,
  validQueue,
} from '../../../server/contract/keyspace/index.ts';
import { LIMITS } from '../../../server/contract/limits.ts';
import type { WireProof } from '../../../server/contract/wire/types.ts';
import { markup, type SafeHtml } from '../../lib/html.ts';
import { refusalText } from './refusal-text.ts';
import { reachedView, wireView } from './wire-view.ts';

export interface QueueRefusal {
  queue: string;
  code: string;
  message: string;
  /** What was typed, in the page's words, when it is not a queue name (`key`, `keys[0]`). */
  field?: string;
}

const NOTHING_SENT: WireProof = { reached: 0, listed: 0, bytesReceived: 0, bytesListed: 0 };

/** Over a byte cap, in the API's own words (the server refuses the same, had it been sent). */
export function overCap(field: string, value: string, cap: number): QueueRefusal | null {
  const bytes = utf8(value).length;
  return bytes > cap
    ? {
        queue: value,
        field,
        code: 'BAD_INPUT',
        message: `${field}: is ${bytes} bytes long; at most ${cap} are allowed`,
      }
    : null;
}

/** Why the API or the host would refuse this queue name, or null for a name that may be sent. */
export function queueRefusal(queue: string): QueueRefusal | null {
  const long = overCap('queue', queue, LIMITS.queueBytes);
  if (long) return long;
  try {
    validQueue(queue);
    return null;
  } catch (error) {
    if (!(error instanceof KeyspaceError)) throw error;
    return { queue, code: error.code, message: error.message };
  }
}

/**
 * For a brace in the name: the key the grammar would have built and the hashtag a cluster reads from
 * it (the bytes from the first { to the first } after it): a}b would hash on a; a{b on a{b, the whole
 * name, and is refused all the same, since the grammar admits no brace at all.
 */
function wouldBe(queue: string, code: string): SafeHtml | '' {
  if (code !== 'BRACE') return '';
  const key = queueKey(queue, 'pending');
  const tag = hashtag(key);
  const where =
    tag === queue
      ? markup`, the whole name (the hashtag runs from the first <code>{</code> to the first <code>}</code> after it), and is refused all the same`
      : markup`, not on the name <code>${queue}</code>: its keys would land on slot ${slot(key)} instead of ${slot(queue)}`;
  return markup`<p class="xp-note" data-would-be>Had it been built, <code>${key}</code> would hash on <code>${tag}</code>${where}.</p>`;
}

/**
 * The one view of a refused queue name: its code and message, the would-be key, and the empty wire.
 * `measured`: the server's own count of what reached it during a run that was sent (keys sends one, to
 * prove nothing arrived); without it, nothing was sent at all.
 */
export function queueRefusedView(refusal: QueueRefusal, measured?: WireProof): SafeHtml {
  const what = !refusal.field || refusal.field === 'queue' ? 'queue name' : 'key';
  const who =
    refusal.code === 'BAD_INPUT'
      ? `The API refuses a ${what} over its byte cap before the wire.`
      : 'The host refused the queue name before the wire.';
  const proof = measured && reachedView(measured);
  return markup`${refusalText(refusal.code, refusal.message)}<p data-refused-by>${who}</p>${wouldBe(refusal.queue, refusal.code)}${proof}${wireView([], measured ?? NOTHING_SENT)}`;
}
