// The explorer's results as HTML, from one set of functions: the page renders the first view with them
// at build time (the fallback) and on request (the island), and the browser renders every later result
// with the same ones, so the three never differ in shape. Free of Node and DOM APIs.

import { TRANSITIONS } from '../../../server/contract/transitions.ts';
import { reserveSlot, utf8, versionKey } from '../../../server/contract/keyspace/index.ts';
import type { SlotCall } from '../../../server/contract/experiments/cross-slot.ts';
import type { ReservePlanStep } from '../../../server/contract/experiments/reserve-plan.ts';
import type { KeyView } from '../../../server/contract/experiments/segments.ts';
import type { ReserveStep } from '../../../server/contract/experiments/reserve.ts';
import type { ExecutorStep } from '../../../server/contract/experiments/two-executors.ts';
import type { KeyChange } from '../../../server/contract/dump.ts';
import { joined, markup, type SafeHtml } from '../../lib/html.ts';
import { breakable, keyText } from './key-text.ts';
import { cliReply, readableLine, wireView } from './wire-view.ts';
import type { WireReply } from '../../../server/contract/wire/types.ts';
import { kindBadge, replyBadge, textKind } from './reply-badge.ts';
import type { GridMark } from './slot-grid.ts';

const SEGMENT_TITLES: Record<string, string> = {
  prefix: 'the prefix',
  open: 'the hashtag opens',
  queue: 'the queue name: the hashtag',
  close: 'the hashtag closes',
  type: 'the type',
  key: 'a key outside the queue grammar',
};

/** A key with each segment marked; the queue name (the hashtag) stands out. */
export function segmentedKey(view: Pick<KeyView, 'segments'>): SafeHtml {
  return markup`<code class="xp-key">${view.segments.map(
    (s) =>
      // a line may break only after a segment ending in ':' (emq: and }:), never inside a word
      markup`<span class="xp-seg xp-seg-${s.part}" title="${SEGMENT_TITLES[s.part]}">${s.text}</span>${s.text.endsWith(':') && markup`<wbr>`}`,
  )}</code>`;
}

/** Every key of a queue: type, segmented key, its bytes in hex (unless compact), and its slot. */
export function keyList(keys: Array<KeyView & { type: string }>, compact = false): SafeHtml {
  const rows = keys.map(
    (k) => markup`<li class="xp-key-row">
  <span class="xp-key-type">${k.type}</span>
  ${segmentedKey(k)}
  <span class="xp-key-meta">${k.bytes} bytes · slot <b>${k.slot}</b></span>${
    !compact &&
    markup`
  <span class="xp-hex"><span class="visually-hidden">bytes in hex: </span>${joined(
    k.segments.map((s) => markup`<span class="xp-seg-${s.part}">${s.hex}</span>`),
    ' ',
  )}</span>`
  }
</li>`,
  );
  return markup`<ol class="xp-key-list${compact && ' is-compact'}">${joined(rows, '\n')}</ol>`;
}

/** The pins of a queue, the reserve, and (optionally) a second queue. */
export function queuePins(
  queue: string,
  queueSlot: number,
  other?: { name: string; slot: number },
): GridMark[] {
  const pins: GridMark[] = [{ slot: queueSlot, label: `emq:{${queue}}:*`, kind: 'queue' }];
  if (other) pins.push({ slot: other.slot, label: `emq:{${other.name}}:*`, kind: 'other' });
  pins.push({ slot: reserveSlot(), label: versionKey(), kind: 'reserve' });
  return pins;
}

/** A CRC16 as the page writes it: 0x and four upper-case hex digits. */
export function crcHex(crc: number): string {
  return `0x${crc.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A refusal as the API or the server gave it. */
export function refusalText(code: string, message: string): SafeHtml {
  // A server error's message starts with its class: the badge says it, the text does not say it again.
  const text = message.startsWith(`${code} `) ? message.slice(code.length + 1) : message;
  return markup`<p class="xp-refused"><span class="xp-badge is-refused">${code}</span> ${text}</p>`;
}

/** A key with the byte at `offset` marked (the whole character holding it, for multi-byte UTF-8). */
export function markedKey(key: string, offset: number | null): SafeHtml {
  if (offset === null) return keyText(key);
  const bytes = utf8(key);
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  let start = Math.min(offset, bytes.length);
  while (start > 0 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start -= 1;
  let end = start;
  if (end < bytes.length) {
    end += 1;
    while (end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end += 1;
  }
  const byte = start < bytes.length ? bytes[offset]! : null;
  const what =
    byte === null ? 'the key ends here' : `byte ${offset}: 0x${byte.toString(16).padStart(2, '0')}`;
  const mark =
    start < bytes.length
      ? markup`<mark class="xp-byte" data-offset="${offset}" title="${what}">${decode(bytes.subarray(start, end))}</mark>`
      : markup`<mark class="xp-byte is-end" data-offset="${offset}" title="${what}">␄</mark>`;
  return markup`<code class="xp-key">${breakable(decode(bytes.subarray(0, start)))}${mark}${breakable(decode(bytes.subarray(end)))}</code>`;
}

/** The reserve sequence as a timeline: the plan before a run, every command and reply after it. */
export function reserveTimeline(steps: Array<ReservePlanStep | ReserveStep>): SafeHtml {
  const items = steps.map((step, i) => {
    const done = 'outcome' in step;
    const commands = done
      ? markup`<ol class="xp-commands">${step.commands.map(
          (c) =>
            markup`<li><code>${c.command}</code> <span class="xp-arrow" aria-hidden="true">→</span><span class="visually-hidden">replies</span> <code class="xp-reply">${c.reply === null ? '(nil)' : c.reply}</code></li>`,
        )}</ol>
  <p class="xp-step-outcome">${
    step.outcome === 'ok'
      ? markup`<span class="xp-badge is-ok">ok</span>`
      : markup`<span class="xp-badge is-refused">refused</span>`
  } ${step.message} <span class="xp-identity">· {emq}:version now holds <code>${step.identity ?? '(nil)'}</code></span></p>
  ${wireView(step.wire, step.proof, 'On the wire')}`
      : markup`<p class="xp-step-pending">not run yet</p>`;
    return markup`<li class="xp-step" data-step="${i + 1}" data-outcome="${done ? step.outcome : 'pending'}">
  <p class="xp-step-head"><span class="xp-keyspace">keyspace ${step.keyspace}</span> <b>${step.actor}</b> — ${step.action}</p>
  ${commands}
</li>`;
  });
  return markup`<ol class="xp-timeline">${joined(items, '\n')}</ol>`;
}

/** What a step changed in one keyspace: + added, - removed, ~ changed (before → after). */
function changesText(changes: KeyChange[] | undefined): string {
  if (!changes) return '';
  if (changes.length === 0) return '(nothing changed)';
  const value = (v: KeyChange['after']) => (v ? `${v.type} ${JSON.stringify(v.value)}` : '');
  return changes
    .map((c) =>
      c.change === 'added'
        ? `+ ${c.key}  ${value(c.after)}`
        : c.change === 'removed'
          ? `- ${c.key}  ${value(c.before)}`
          : `~ ${c.key}  ${value(c.before)} → ${value(c.after)}`,
    )
    .join('\n');
}

/** The call a side made for a step, as it went on the wire (the last command sent: after any NOSCRIPT). */
function sentCall(side: ExecutorStep['scripted']): SafeHtml | '' {
  const call = side.wire?.at(-1)?.line ?? '';
  return call && markup`<code class="xp-wire-cmd" data-call>&gt; ${breakable(readableLine(call))}</code>`;
}

/**
 * Both executors after every step and the verdict: per step one line of replies, the calls and the
 * keyspace changes folded (a sequence of a dozen steps stays a screen or two tall at 360 px).
 */
export function executorRuns(steps: ExecutorStep[], same: boolean): SafeHtml {
  const rows = steps.map(
    (s, i) => markup`<li class="xp-run" data-same="${String(s.same)}">
  <p class="xp-run-head"><b>${i + 1}. ${s.step}</b> <code>${s.transition}</code> ${
    s.same
      ? markup`<span class="xp-badge is-ok">same</span>`
      : markup`<span class="xp-badge is-refused">differs</span> ${s.differences.join('; ')}`
  }</p>
  <p class="xp-run-replies"><span class="xp-side-name">scripted</span> <code class="xp-reply" data-side="scripted">${cliReply(s.scripted.reply as WireReply)}</code> <span class="xp-side-name">native</span> <code class="xp-reply" data-side="native">${cliReply(s.native.reply as WireReply)}</code></p>
  <details class="xp-run-calls"><summary>The call each executor sent</summary>
    <div class="xp-sides">
      <div><p class="xp-side-name">scripted (EVALSHA)</p>${sentCall(s.scripted)}${wireView(s.scripted.wire, s.scripted.proof, 'Sent')}</div>
      <div><p class="xp-side-name">native (${TRANSITIONS[s.transition].command})</p>${sentCall(s.native)}${wireView(s.native.wire, s.native.proof, 'Sent')}</div>
    </div>
  </details>
  <details class="xp-keyspaces"><summary>What this step changed in each keyspace</summary>
    <div class="xp-sides">
      <pre tabindex="0" aria-label="what the step changed in the scripted keyspace">${breakable(changesText(s.scripted.changes))}</pre>
      <pre tabindex="0" aria-label="what the step changed in the native keyspace">${breakable(changesText(s.native.changes))}</pre>
    </div>
  </details>
</li>`,
  );
  const verdict = same
    ? markup`<p class="xp-verdict" data-verdict="same"><span class="xp-badge is-ok">same</span> After every step both executors left the same keys with the same contents.</p>`
    : markup`<p class="xp-verdict" data-verdict="differ"><span class="xp-badge is-refused">differ</span> The executors disagree at ${steps.filter((s) => !s.same).length} step(s).</p>`;
  return markup`${verdict}<ol class="xp-runs">${joined(rows, '\n')}</ol>`;
}

function slotCall(title: string, call: SlotCall): SafeHtml {
  const keys = call.keys.map((k, i) => markup`<li>${keyText(k)} → slot ${call.slots[i]}</li>`);
  const reply =
    call.error !== undefined
      ? markup`${kindBadge(textKind(call.error))} <code data-reply>${call.error}</code>`
      : 'reply' in call
        ? markup`${replyBadge(call.reply as WireReply)} <code data-reply>${cliReply(call.reply as WireReply)}</code> <span class="xp-hint">(an empty queue: nothing to claim)</span>`
        : // without JavaScript nothing will ask the node: say so rather than wait on screen for ever
          markup`<span class="xp-hint"><span class="needs-js">waiting for the cluster node</span><span class="no-js-only">not asked: the live explorer needs JavaScript</span></span>`;
  return markup`<div class="xp-call"><p class="xp-side-name">${title}</p><ul class="xp-call-keys">${keys}</ul><p class="xp-call-reply">${reply}</p></div>`;
}

/** The claim on the cluster node: one queue's keys (one slot), then one key swapped for another queue's. */
export function crossSlot(single: SlotCall, mixed: SlotCall): SafeHtml {
  return markup`<div class="xp-sides">${slotCall('EVALSHA claim, one queue', single)}${slotCall('the same claim, two queues mixed', mixed)}</div>`;
}
