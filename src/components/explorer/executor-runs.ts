// The two executors experiment's view: both executors after every step (their replies, the calls they
// sent, what each step changed) and the verdict. Rendered at build time (the fallback), on request (the
// island) and in the browser after each run by these same functions. Free of Node and DOM APIs.

import { TRANSITIONS } from '../../../server/contract/transitions.ts';
import type { ExecutorStep } from '../../../server/contract/experiments/two-executors.ts';
import type { KeyChange } from '../../../server/contract/dump.ts';
import { joined, markup, type SafeHtml } from '../../lib/html.ts';
import { breakable } from './key-text.ts';
import { cliReply, readableLine, wireView } from './wire-view.ts';
import type { WireReply } from '../../../server/contract/wire/types.ts';

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
