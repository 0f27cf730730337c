// The migration as a stepper: one phase at a time — its name, when it happened (the server's atMs), a
// drawing of the cluster in that phase (the nodes, the slot's owner, IMPORTING/MIGRATING, the queue's keys
// on their side, each probe an arrow from the client to the node asked, marked with its reply's kind in
// colour and in a word), and under it the probes as a compact table, each reply as redis-cli prints it;
// every command in full on demand. One view for both modes. Markup only (the controls are
// stepper-controls.ts). Free of Node and DOM APIs.

import {
  replyKind,
  type MigrationPhase,
  type MigrationProbe,
  type MigrationResult,
  type ProbeReply,
} from '../../../server/contract/experiments/migration.ts';
import { markup, type SafeHtml } from '../../lib/html.ts';
import { kindBadge, replyBadge } from './reply-badge.ts';
import { cliReply } from './wire-view.ts';

/** A command as typed: an empty argument shows as "". */
export const words = (command: string[]) => command.map((w) => (w === '' ? '""' : w)).join(' ');

/** A command short enough for a table cell: a script's SHA and any long argument cut, the rest kept. */
function shortCommand(command: string[]): string {
  return command
    .map((w) =>
      w === ''
        ? '""'
        : /^[0-9a-f]{40}$/.test(w)
          ? `${w.slice(0, 8)}…`
          : w.length > 30
            ? `${w.slice(0, 28)}…`
            : w,
    )
    .join(' ');
}

/** When, in whole milliseconds since the move began (the server measures fractions; the page need not). */
export const ms = (value: number) => Math.round(value).toLocaleString('en');
const when = (atMs: number | undefined) =>
  atMs === undefined ? '' : atMs < 0 ? `${ms(-atMs)} ms before the move` : `+${ms(atMs)} ms`;

export const modeTitle = (mode: string) =>
  mode === 'atomic' ? 'Atomic — Valkey 9.1' : 'Key by key — Valkey 8';

/** The queue's keys a node holds in a phase: the source's or the target's, none on a third node. */
export function keysOn(r: MigrationResult, phase: MigrationPhase, address: string): string[] {
  return address === r.source ? phase.keys.source : address === r.target ? phase.keys.target : [];
}

/** Atomic mode, while the slot moved: how often the node answered the probe alike, as a badge. */
export function servedBadge(p: MigrationProbe): SafeHtml | false {
  const kind = replyKind(p.firstReply ?? 'served');
  return p.served !== undefined && kindBadge(kind, `${kind} ${p.served}×`);
}

function nodeIndex(r: MigrationResult, address: string): number {
  return r.nodes.findIndex((n) => n.address === address);
}

function nodeName(r: MigrationResult, address: string): string {
  return r.nodes[nodeIndex(r, address)]?.name ?? address;
}

/** What a key is within its queue: its part after the hashtag (`pending`, `job:JOB…`). */
const keyPart = (key: string) => key.slice(key.indexOf('}:') + 2) || key;

const W = 300;
const CLIENT_R = 50;
const NODE_L = 150;
const ROW = 15;

/**
 * The cluster in one phase, drawn: the client on the left, the nodes stacked on the right, each probe a
 * row of its own — an arrow from the client to the node asked, its number and reply kind written on it.
 */
export function phaseDrawing(r: MigrationResult, phase: MigrationPhase): SafeHtml {
  const probes = phase.probes.map((p, j) => ({ p, j, at: Math.max(0, nodeIndex(r, p.node)) }));
  let y = 4;
  const boxes: SafeHtml[] = [];
  const arrows: SafeHtml[] = [];
  r.nodes.forEach((node, i) => {
    const mine = probes.filter((q) => q.at === i);
    const height = Math.max(74, mine.length * ROW + 14);
    const owns = node.address === phase.owner;
    const open = phase.open.find((o) => o.node === node.address);
    const keys = keysOn(r, phase, node.address);
    const shown = keys.slice(0, 2).map(keyPart).join(', ');
    const more = keys.length > 2 ? ` +${keys.length - 2}` : '';
    const lines = [
      owns ? `owns slot ${r.slot}` : '',
      keys.length === 0
        ? 'no key of the queue'
        : `${keys.length} key${keys.length === 1 ? '' : 's'} of the queue`,
    ];
    const tx = NODE_L + 6;
    boxes.push(markup`<g class="xp-draw-node" data-node="${i + 1}" data-owner="${String(owns)}"${open && markup` data-open="${open.state}"`}>
  <rect class="xp-box xp-box-${(i % 3) + 1}${owns && ' is-owner'}" x="${NODE_L}" y="${y}" width="${W - NODE_L - 4}" height="${height}" rx="5" />
  <text class="xp-draw-name" x="${tx}" y="${y + 15}">${node.name}</text>
  <text class="xp-draw-small" x="${tx}" y="${y + 28}">${node.address}</text>
  <text class="xp-draw-state" x="${tx}" y="${y + 42}">${lines[0]}${open && markup`<tspan class="xp-draw-open">${owns ? ' · ' : ''}${open.state.toUpperCase()}</tspan>`}</text>
  <text class="xp-draw-small" x="${tx}" y="${y + 56}">${lines[1]}</text>
  ${shown && markup`<text class="xp-draw-key" x="${tx}" y="${y + 69}">${shown.length > 22 ? `${shown.slice(0, 21)}…` : shown}${more}</text>`}
</g>`);
    mine.forEach((q, k) => {
      const ay = y + 12 + k * ROW;
      const kind = replyKind(q.p.reply);
      arrows.push(
        markup`<g class="xp-arrow xp-arrow-${kind}" data-kind="${kind}"><line x1="${CLIENT_R}" y1="${ay}" x2="${NODE_L - 6}" y2="${ay}" /><path d="M${NODE_L - 1} ${ay}l-7 -3.5v7z" /><text class="xp-chip" x="${CLIENT_R + 6}" y="${ay - 2.5}">${q.j + 1} ${kind}</text></g>`,
      );
    });
    y += height + 6;
  });
  const height = y;
  const described = [
    `${phase.name}: ${nodeName(r, phase.owner)} owns slot ${r.slot}`,
    ...phase.open.map((o) => `${nodeName(r, o.node)} ${o.state.toUpperCase()}`),
    `keys of the queue: ${phase.keys.source.length} on ${nodeName(r, r.source)}, ${phase.keys.target.length} on ${nodeName(r, r.target)}`,
    ...phase.probes.map((p, j) => `probe ${j + 1} to ${nodeName(r, p.node)}: ${replyKind(p.reply)}`),
  ].join('; ');
  return markup`<svg class="xp-draw" viewBox="0 0 ${W} ${height}" role="img" aria-label="${described}" data-drawing>
  <rect class="xp-box xp-box-client" x="4" y="4" width="${CLIENT_R - 4}" height="${height - 8}" rx="5" />
  <text class="xp-draw-name is-client" x="${(CLIENT_R + 4) / 2}" y="${height / 2}">client</text>
  ${arrows}
  ${boxes}
</svg>`;
}

/** A reply as redis-cli prints it: one line in the table, a longer one (an array) whole on demand. */
function cliCell(reply: ProbeReply, attr: string): SafeHtml {
  const text = cliReply(reply);
  const lines = text.split('\n');
  if (lines.length === 1) return markup`<pre class="xp-wire-reply" ${attr}>${text}</pre>`;
  return markup`<details class="xp-reply-more"><summary><code>${lines[0]}</code> <span class="xp-hint">… ${lines.length} lines</span></summary><pre class="xp-wire-reply" ${attr}>${text}</pre></details>`;
}

function probeReply(p: MigrationProbe): SafeHtml {
  const before =
    p.served !== undefined &&
    markup`${servedBadge(p)}${p.firstReply !== undefined && cliCell(p.firstReply, 'data-first-reply')} then `;
  return markup`${before}${replyBadge(p.reply)}${cliCell(p.reply, 'data-reply')}`;
}

/** The phase's probes as a compact table: command, node, reply (redis-cli's way). */
export function probeTable(r: MigrationResult, phase: MigrationPhase): SafeHtml | '' {
  if (phase.probes.length === 0) return markup`<p class="xp-note">No probe in this phase.</p>`;
  const rows = phase.probes.map(
    (p, j) => markup`<tr data-probe="${p.label}" data-kind="${replyKind(p.reply)}">
  <td data-label="#">${j + 1}</td>
  <td data-label="Command"><code class="xp-key">${p.asking && 'ASKING, then '}${shortCommand(p.command)}</code><span class="xp-probe-label">${p.label}</span></td>
  <td data-label="Node">${nodeName(r, p.node)}${p.atMs !== undefined && markup` <span class="xp-hint">${when(p.atMs)}</span>`}</td>
  <td data-label="Reply">${probeReply(p)}</td>
</tr>`,
  );
  return markup`<table class="xp-probe-table"><caption class="visually-hidden">The probes of phase ${phase.name}</caption><thead><tr><th scope="col">#</th><th scope="col">Command</th><th scope="col">Node</th><th scope="col">Reply</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Every command of the phase in full: the migration's own, then the probes'. */
function fullCommands(r: MigrationResult, phase: MigrationPhase): SafeHtml {
  const steps = phase.steps.map(
    (s) =>
      markup`<li><code class="xp-wire-cmd">${nodeName(r, s.node)}&gt; ${words(s.command)}</code><pre class="xp-wire-reply">${cliReply(s.reply)}</pre></li>`,
  );
  const probes = phase.probes.map(
    (p, j) =>
      markup`<li><code class="xp-wire-cmd">${j + 1}. ${nodeName(r, p.node)}&gt; ${p.asking && 'ASKING, then '}${words(p.command)}</code></li>`,
  );
  return markup`<details class="xp-wire" data-full-commands><summary>Every command of this phase in full: ${phase.steps.length} of the migration, ${phase.probes.length} probe${phase.probes.length === 1 ? '' : 's'}</summary>${
    steps.length > 0 &&
    markup`<p class="xp-note">The migration’s commands, sent as the admin:</p><ol class="xp-wire-list">${steps}</ol>`
  }${probes.length > 0 && markup`<p class="xp-note">The probes:</p><ol class="xp-wire-list">${probes}</ol>`}</details>`;
}

/** One phase as the stepper shows it. */
export function phaseFrame(r: MigrationResult, index: number): SafeHtml {
  const phase = r.phases[index]!;
  return markup`<div class="xp-frame" data-frame="${phase.name}" data-frame-index="${index}">
  <p class="xp-frame-head"><b>Phase ${index + 1} of ${r.phases.length}: <span data-frame-name>${phase.name}</span></b> <span class="xp-hint" data-frame-at>${when(phase.atMs)}</span></p>
  <p class="xp-frame-summary">${phase.summary}</p>
  ${phaseDrawing(r, phase)}
  ${probeTable(r, phase)}
  ${fullCommands(r, phase)}
</div>`;
}

/** The stepper's controls and its first phase; stepper-controls.ts drives it from the result. */
export function stepper(r: MigrationResult, index = 0): SafeHtml {
  const last = r.phases.length - 1;
  return markup`<div class="xp-stepper" data-stepper data-mode="${r.mode}">
  <div class="xp-stepper-controls">
    <button type="button" data-step="prev"${index === 0 && ' disabled'}>Previous</button>
    <input type="range" min="0" max="${last}" step="1" value="${index}" aria-label="Phase of the ${r.mode === 'atomic' ? 'atomic' : 'key-by-key'} move" aria-valuetext="phase ${index + 1} of ${r.phases.length}: ${r.phases[index]!.name}" data-step="scrub" />
    <button type="button" data-step="next"${index === last && ' disabled'}>Next</button>
    <button type="button" data-step="play" aria-pressed="false">Play</button>
  </div>
  <p class="visually-hidden" aria-live="polite" data-stepper-said></p>
  <div data-stepper-frame aria-live="off">${phaseFrame(r, index)}</div>
</div>`;
}
