// A key as the page shows it, wherever it shows one: its own bytes as UTF-8 text (never escaped, never
// re-cased), with a line break allowed only after each ':' (emq: | {orders}: | pending), so a narrow
// screen wraps between segments, never inside one. Small: the console's script uses it too.

import { joined, markup, type SafeHtml } from '../../lib/html.ts';

/**
 * Text as HTML with a break allowed after each ':': a command or a list holding keys wraps between
 * segments. A ':' just before a '{' needs no <wbr>: a line may break before an opening brace anyway
 * (Unicode line breaking, UAX #14), so none is written there; nor does a ':' that ends the text. `then` is the text that follows `text`
 * in the page, when it is not part of it (a key's hashtag, in an element of its own).
 */
export function breakable(text: string, then = ''): SafeHtml {
  const pieces = text.split(':');
  return joined(
    pieces.map((piece, i) => {
      if (i === pieces.length - 1) return piece;
      const next = i + 2 === pieces.length && pieces[i + 1] === '' ? then : pieces[i + 1]!;
      // nothing after the last ':' (a row base, `emq:{q}:job:`): a break there is the following text's
      return markup`${piece}:${next !== '' && !next.startsWith('{') && markup`<wbr>`}`;
    }),
    '',
  );
}

export function keyText(key: string): SafeHtml {
  return markup`<code class="xp-key">${breakable(key)}</code>`;
}
