// The keys of the queue the reader is typing, built by the project's keyspace module — in the page at
// build time and in the browser on every keystroke, the same way — or the refusal the host would give,
// at once (a brace, an empty name, a name over the byte cap, a malformed job id). Free of Node and DOM APIs.

import { jobKey, KeyspaceError, queueKeys } from '../../../server/contract/keyspace/index.ts';
import { viewKey } from '../../../server/contract/experiments/segments.ts';
import { markup, type SafeHtml } from '../../lib/html.ts';
import { keyList, refusalText } from './explorer-view.ts';
import { queueRefusal, queueRefusedView } from './queue-refusal.ts';

/** The id the list shows a job row with, until the reader types one. */
export const EXAMPLE_ID = 'JOB0Nb1VTbfnu4';

export function typedKeys(queue: string, id: string, compact: boolean): SafeHtml {
  const refused = queueRefusal(queue);
  if (refused) return queueRefusedView(refused);
  let row: string;
  try {
    row = jobKey(queue, id || EXAMPLE_ID);
  } catch (error) {
    if (!(error instanceof KeyspaceError)) throw error;
    return markup`${refusalText(error.code, error.message)}<p data-refused-by>The host refuses the job id before the wire.</p>`;
  }
  const keys = [
    ...queueKeys(queue).map(({ type, key }) => ({ type, ...viewKey(key) })),
    { type: 'job row', ...viewKey(row) },
  ];
  return markup`<p class="xp-note">The keys of <code class="xp-key">${queue}</code>, built in this page by the project’s keyspace module as you type. Enqueue to read them back from a real server.</p>
${keyList(keys, compact)}`;
}
