// The reserve experiment's view: its sequence as a timeline, the plan before a run and every command
// and reply after it. Rendered at build time (the fallback), on request (the island) and in the browser
// after each run by this same function. Free of Node and DOM APIs.

import type { ReservePlanStep } from '../../../server/contract/experiments/reserve-plan.ts';
import type { ReserveStep } from '../../../server/contract/experiments/reserve.ts';
import { joined, markup, type SafeHtml } from '../../lib/html.ts';
import { wireView } from './wire-view.ts';

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
