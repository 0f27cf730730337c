// The keys experiment's view: every key of a queue, its hashtag (the queue name in braces) standing out,
// with its bytes, its slot and its bytes in hex. Rendered at build time (the fallback), on request (the
// island) and in the browser after each run by these same functions. Free of Node and DOM APIs. Lean on
// purpose: a page lists a dozen keys, so a row is a few elements, the rest plain text.

import type { KeyView } from '../../../server/contract/experiments/segments.ts';
import { joined, markup, type SafeHtml } from '../../lib/html.ts';
import { breakable } from './key-text.ts';

/**
 * A key with its hashtag marked: `emq:` `{orders}` `:pending`, a line break allowed only after each ':'
 * (key-text.ts), so a narrow screen wraps between segments, never inside one.
 */
export function segmentedKey(view: Pick<KeyView, 'segments'>): SafeHtml {
  const parts: SafeHtml[] = [];
  let text = '';
  for (const s of view.segments) {
    if (s.part === 'open') {
      parts.push(breakable(text, s.text));
      text = s.text;
    } else if (s.part === 'close') {
      // '}' closes the hashtag; what follows it in the segment (the ':') is plain text again
      parts.push(markup`<span class="xp-hashtag" title="the hashtag: the slot is its CRC16">${text}}</span>`);
      text = s.text.slice(1);
    } else text += s.text;
  }
  parts.push(breakable(text));
  return markup`<code class="xp-key">${parts}</code>`;
}

/**
 * Every key of a queue: type, key, its bytes and slot, and its bytes in hex (unless compact), said as
 * such in the line's own words, seen and heard alike.
 */
export function keyList(keys: Array<KeyView & { type: string }>, compact = false): SafeHtml {
  const rows = keys.map(
    (k) => markup`<li class="xp-key-row">
  <span class="xp-key-type">${k.type}</span>
  ${segmentedKey(k)}
  <span class="xp-key-meta">${k.bytes} bytes · slot <b>${k.slot}</b></span>${
    !compact &&
    markup`
  <span class="xp-hex">hex: ${k.segments
    .map((s) => s.hex)
    .filter(Boolean)
    .join(' ')}</span>`
  }
</li>`,
  );
  return markup`<ol class="xp-key-list${compact && ' is-compact'}">${joined(rows, '\n')}</ol>`;
}
