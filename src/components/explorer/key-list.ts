// The keys experiment's view: every key of a queue, segment by segment (the queue name, its hashtag,
// stands out), with its bytes and its slot. Rendered at build time (the fallback), on request (the
// island) and in the browser after each run by these same functions. Free of Node and DOM APIs.

import type { KeyView } from '../../../server/contract/experiments/segments.ts';
import { joined, markup, type SafeHtml } from '../../lib/html.ts';

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
