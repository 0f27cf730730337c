// What an atomic reshard run showed (Valkey 9.1, CLUSTER MIGRATESLOTS): which server ran it, the one
// command, the states CLUSTER GETSLOTMIGRATIONS went through, and each probe sent to the source while
// the slot moved — served so many times, then MOVED — beside the phases before and after. HTML strings,
// built the same way on the server and in the browser.

import type { AtomicReshardResult, Phase, Probe } from '../../../server/experiments/reshard-atomic.ts';
import { esc } from './escape.ts';
import { replyText } from './explorer-view.ts';

const words = (command: string[]) => command.map((w) => (w === '' ? '""' : w)).join(' ');

/** A probe's command, shortened where a script's sha or a key list would drown it. */
function shortCommand(command: string[]): string {
  const shown =
    command[0] === 'EVALSHA' ? ['EVALSHA', `${command[1]!.slice(0, 8)}…`, ...command.slice(2)] : command;
  return words(shown);
}

function probeLine(probe: Probe): string {
  const served =
    probe.served === undefined ? '' : ` <span class="xp-badge is-ok">served ${probe.served}×</span> then`;
  return `<li><span class="xp-side-name">${esc(probe.label)}</span> <code>${esc(shortCommand(probe.command))}</code> <span class="xp-hint">to ${esc(probe.node)}</span> →${served} <code data-reply>${esc(replyText(probe.reply))}</code></li>`;
}

function phaseView(phase: Phase): string {
  return `<div class="xp-call" data-atomic-phase="${esc(phase.name)}"><p class="xp-side-name">${esc(phase.name)} — owner <code>${esc(phase.owner)}</code>; keys in the slot: ${phase.counts.source} on the source, ${phase.counts.target} on the target</p>
  <ul class="xp-call-keys">${phase.probes.map(probeLine).join('')}</ul></div>`;
}

export function atomicReshardView(r: AtomicReshardResult): string {
  const states = r.migrations
    .map(
      (m) =>
        `<li><span class="xp-hint">+${m.atMs} ms</span> ${esc(m.operation)} on <code>${esc(m.node)}</code>: <code>${esc(m.state)}</code></li>`,
    )
    .join('');
  const together = r.moved.together
    ? '<span class="xp-badge is-ok">together</span>'
    : '<span class="xp-badge is-refused">split</span>';
  const back = r.restore.back
    ? '<span class="xp-badge is-ok">back</span>'
    : '<span class="xp-badge is-refused">not back</span>';
  return `<p class="xp-note" data-atomic="server">Ran on <strong>${esc(r.server)}</strong>: slot ${r.slot} of <code>${esc(r.queue)}</code> (${r.jobs.toLocaleString('en')} jobs) from <code>${esc(r.from)}</code> to <code>${esc(r.to)}</code> in ${r.moveMs} ms.</p>
<div class="xp-call" data-atomic="command"><p><code>${esc(words(r.command))}</code> <span class="xp-hint">on ${esc(r.from)}</span></p>
  <p class="xp-side-name">CLUSTER GETSLOTMIGRATIONS, as it changed</p><ol class="xp-call-keys">${states}</ol></div>
${r.phases.map(phaseView).join('\n')}
<div class="xp-call" data-atomic="moved"><p>${together} ${r.moved.after.toLocaleString('en')} of ${r.moved.before.toLocaleString('en')} keys on the new owner, ${r.moved.leftOnSource} left behind.</p>
  <p>${back} the slot moved back to <code>${esc(r.restore.owner)}</code> the same way, in ${r.restore.moveMs} ms; the queue deleted after.</p></div>`;
}
