// A refusal, as every experiment's view shows one: the code as a badge, then what the API or the
// server said. Free of Node and DOM APIs.

import { markup, type SafeHtml } from '../../lib/html.ts';

/** A refusal as the API or the server gave it. */
export function refusalText(code: string, message: string): SafeHtml {
  // A server error's message starts with its class: the badge says it, the text does not say it again.
  const text = message.startsWith(`${code} `) ? message.slice(code.length + 1) : message;
  return markup`<p class="xp-refused"><span class="xp-badge is-refused">${code}</span> ${text}</p>`;
}
