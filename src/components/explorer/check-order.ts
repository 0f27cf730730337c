// The order in which a call is checked, drawn once for every experiment that shows a verdict: the
// cluster's routing, then the native module's key count, layout, server mode and wire identity, then
// the transition itself. The first check that fails replies; a reply lights the step that gave it (and
// says so in words), the steps before it passed, the ones after it were never reached. Free of Node
// and DOM APIs.

import { isErrorReply, type ProbeReply } from '../../../server/contract/experiments/migration.ts';
import { markup, type SafeHtml } from '../../lib/html.ts';

export const CHECKS = [
  'routing',
  'key count',
  'layout',
  'server mode',
  'wire identity',
  'transition',
] as const;
export type Check = (typeof CHECKS)[number];

const ROUTING = new Set(['MOVED', 'ASK', 'TRYAGAIN', 'CROSSSLOT', 'CLUSTERDOWN']);

/** Which check gave this reply: a value, or a refusal the checks let through, is the transition's. */
export function answeredBy(reply: ProbeReply): Check {
  if (!isErrorReply(reply)) return 'transition';
  const text = reply.error;
  const word = text.split(' ', 1)[0]!;
  if (ROUTING.has(word)) return 'routing';
  if (word === 'EMQKEY') return /expects \d+ keys but found \d+/.test(text) ? 'key count' : 'layout';
  if (word === 'EMQWIRE') return /cluster mode is enabled/.test(text) ? 'server mode' : 'wire identity';
  return 'transition';
}

/**
 * The checks as a row of steps, `lit` the ones that answered. `cluster` false: a standalone node has no
 * routing, and the picture says so rather than light or pass it.
 */
export function checkOrder(lit: Iterable<Check>, { cluster = true } = {}): SafeHtml {
  const answered = new Set(lit);
  const last = Math.max(-1, ...[...answered].map((c) => CHECKS.indexOf(c)));
  const steps = CHECKS.map((check, i) => {
    const state =
      check === 'routing' && !cluster
        ? 'skipped'
        : answered.has(check)
          ? 'answered'
          : i < last
            ? 'passed'
            : 'unreached';
    const word = {
      skipped: 'not on a standalone node',
      answered: 'answered here',
      passed: 'passed',
      unreached: 'not reached',
    }[state];
    return markup`<li class="xp-check is-${state}" data-check="${check}" data-state="${state}"><span class="xp-check-name">${check}</span> <span class="xp-check-state">${word}</span></li>`;
  });
  return markup`<ol class="xp-checks" aria-label="The order of the checks">${steps}</ol>`;
}
