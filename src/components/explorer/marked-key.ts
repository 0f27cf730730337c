// The layout experiment's view of an edited key: the byte the module refused, marked where it stands.
// Rendered at build time (the fallback), on request (the island) and in the browser after each run by
// this same function. Free of Node and DOM APIs.

import { utf8 } from '../../../server/contract/keyspace/index.ts';
import { markup, type SafeHtml } from '../../lib/html.ts';
import { breakable, keyText } from './key-text.ts';

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
