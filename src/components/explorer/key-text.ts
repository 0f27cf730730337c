// A key as the page shows it, wherever it shows one: its own bytes as UTF-8 text (never escaped, never
// re-cased), with a line break allowed only after each ':' (emq: | {orders}: | pending), so a narrow
// screen wraps between segments, never inside one. Small: the console's script uses it too.

import { joined, markup, type SafeHtml } from '../../lib/html.ts';

/** Text as HTML with a break allowed after each ':': a command or a list holding keys wraps between segments. */
export function breakable(text: string): SafeHtml {
  return joined(text.split(':'), markup`:<wbr>`);
}

export function keyText(key: string): SafeHtml {
  return markup`<code class="xp-key">${breakable(key)}</code>`;
}
