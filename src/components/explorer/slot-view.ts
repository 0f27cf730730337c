// The slot experiment's view: a CRC16 as the page writes it, the pins on the slot map, and the claim the
// cluster node answered for one queue and for two mixed. Rendered at build time (the fallback), on
// request (the island) and in the browser after each run by these same functions. Free of Node and DOM
// APIs.

import {
  hashtagRange,
  queueKey,
  queueKeys,
  queuePattern,
  reserveSlot,
  slot,
  utf8,
  versionKey,
} from '../../../server/contract/keyspace/index.ts';
import type { SlotCall } from '../../../server/contract/experiments/cross-slot.ts';
import { markup, type SafeHtml } from '../../lib/html.ts';
import { breakable } from './key-text.ts';
import { cliReply } from './wire-view.ts';
import type { WireReply } from '../../../server/contract/wire/types.ts';
import { kindBadge, replyBadge, textKind } from './reply-badge.ts';
import type { GridMark } from './slot-grid.ts';

/**
 * A queue's pins: one for all its keys (`emq:{q}:*`), as the braces put them on one slot — except for a
 * queue whose braces hold nothing (the empty name), which has no hashtag: each of its keys is hashed
 * whole and lands on a slot of its own (`emq:{}:active` on 5857, the row base `emq:{}:job:` on 374), so
 * each is pinned.
 */
export function queueKeyPins(queue: string, queueSlot: number, kind: GridMark['kind']): GridMark[] {
  if (hashtagRange(utf8(queueKey(queue, 'pending'))).tagged)
    return [{ slot: queueSlot, label: queuePattern(queue), kind }];
  const keys = [...queueKeys(queue).map(({ key }) => key), queueKey(queue, 'job:')];
  return keys.map((key) => ({ slot: slot(key), label: key, kind }));
}

/** The pins of a queue, the reserve, and (optionally) a second queue. */
export function queuePins(
  queue: string,
  queueSlot: number,
  other?: { name: string; slot: number },
): GridMark[] {
  const pins: GridMark[] = queueKeyPins(queue, queueSlot, 'queue');
  if (other) pins.push(...queueKeyPins(other.name, other.slot, 'other'));
  pins.push({ slot: reserveSlot(), label: versionKey(), kind: 'reserve' });
  return pins;
}

/** A CRC16 as the page writes it: 0x and four upper-case hex digits. */
export function crcHex(crc: number): string {
  return `0x${crc.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A CRC16 in hex, then in decimal: `0x0069` (105). */
export function crcText(crc: number): SafeHtml {
  return markup`<code>${crcHex(crc)}</code> (${crc})`;
}

function slotCall(title: string, call: SlotCall): SafeHtml {
  // a line per key, the whole list in the code's face: the key needs no element of its own
  const keys = call.keys.map((k, i) => markup`<li>${breakable(k)} → slot ${call.slots[i]}</li>`);
  const reply =
    call.error !== undefined
      ? markup`${kindBadge(textKind(call.error))} <code data-reply>${call.error}</code>`
      : 'reply' in call
        ? markup`${replyBadge(call.reply as WireReply)} <code data-reply>${cliReply(call.reply as WireReply)}</code> <span class="xp-hint">(an empty queue: nothing to claim)</span>`
        : // without JavaScript nothing will ask the node: say so rather than wait on screen for ever
          markup`<span class="xp-hint"><span class="needs-js">waiting for the cluster node</span><span class="no-js-only">not asked: the live explorer needs JavaScript</span></span>`;
  return markup`<div class="xp-call"><p class="xp-side-name">${title}</p><ul class="xp-call-keys xp-key-lines">${keys}</ul><p class="xp-call-reply">${reply}</p></div>`;
}

/**
 * The claim on the cluster node: one queue's keys (one slot), then one key swapped for another queue's;
 * side by side in their container (`.xp-sides`).
 */
export function crossSlot(single: SlotCall, mixed: SlotCall): SafeHtml {
  return markup`${slotCall('EVALSHA claim, one queue', single)}${slotCall('the same claim, two queues mixed', mixed)}`;
}
