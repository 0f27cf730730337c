// One vocabulary for what a reply is, in every experiment: served (a value), refused (an error reply),
// redirected (MOVED, ASK), retry (TRYAGAIN) — replyKind() of the migration answer's contract decides, and
// the badge shows that word only, never the reply's own first word again. Free of Node and DOM APIs.

import {
  replyKind,
  type ProbeReply,
  type ReplyKind,
} from '../../../server/contract/experiments/migration.ts';
import { markup, type SafeHtml } from '../../lib/html.ts';

/** The badge of a kind of reply: its word, and a colour of its own (never the colour alone). */
export function kindBadge(kind: ReplyKind, text: string = kind): SafeHtml {
  return markup`<span class="xp-badge xp-kind-${kind}" data-kind="${kind}">${text}</span>`;
}

/** The badge of one reply. */
export function replyBadge(reply: ProbeReply): SafeHtml {
  return kindBadge(replyKind(reply));
}

/** A reply that is an error's text (the route experiment keeps replies as text): its kind. */
export function textKind(text: string): ReplyKind {
  return replyKind({ error: text });
}
