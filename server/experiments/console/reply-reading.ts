// A reply read in one line, where redis-cli's own print leaves a newcomer guessing: `(nil)` after
// `SET … NX` means the key was there and nothing was written; `(empty array)` means there is no such
// key. Only replies whose meaning is certain from the command alone get a reading: each command's own,
// in its row (server/contract/console/commands.ts). Free of Node APIs.

import type { WireReply } from '../../wire/recorder.ts';
import type { Planned } from '../../contract/console/allow-list.ts';
import { rowOf } from '../../contract/console/commands.ts';
import { formsFor, structureOf } from '../../contract/console/key-forms.ts';

/** One line of plain words for a reply, or undefined when the reply says it plainly enough. */
export function replyReading(planned: Planned, reply: WireReply): string | undefined {
  return rowOf(planned.command)?.reading?.(planned, reply);
}

/** One line for an error whose fix is a different command: WRONGTYPE names the commands that fit the key. */
export function errorReading(planned: Planned, code: string): string | undefined {
  if (code !== 'WRONGTYPE') return undefined;
  const key = new TextDecoder().decode(planned.keys[0]);
  const forms = formsFor(key);
  return forms
    ? `${key} is ${structureOf(key)}: read it with ${forms.read}`
    : `the key holds another kind of value than ${planned.command} reads; TYPE ${key} says which`;
}
