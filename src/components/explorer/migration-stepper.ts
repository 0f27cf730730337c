// The migration as a stepper: one phase at a time — its name, when it happened (the server's atMs), a
// drawing of the cluster in that phase (the nodes, the slot's owner, IMPORTING/MIGRATING, how many keys of
// the queue each node holds, and per node one arrow per kind of reply it sent, marked with how many, in
// colour and in words; a legend under it), and under it the probes as a compact table, each reply as
// redis-cli prints it;
// every command in full on demand. One view for both modes. Markup only (the controls are
// stepper-controls.ts). Free of Node and DOM APIs.

import {
  REPLY_KINDS,
  replyKind,
  type ReplyCounts,
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
export const ms = (value: number) => (Math.round(value) || 0).toLocaleString('en'); // never "-0"
/** When a phase or probe happened, in words: `12 ms before the move`, `+104 ms`. */
export const when = (atMs: number | undefined) =>
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

/** A count as the page writes numbers: 20,003. */
const count = (n: number) => n.toLocaleString('en');
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/** A node's replies in a phase as words: `11 served, 1 redirected` (the kinds it sent, in move order). */
export function repliesWords(counts: ReplyCounts | undefined): string {
  const said = REPLY_KINDS.filter((kind) => (counts?.[kind] ?? 0) > 0).map(
    (kind) => `${count(counts![kind])} ${kind}`,
  );
  return said.length === 0 ? 'no reply' : said.join(', ');
}

/** The most keys any node held in any phase of the run: the full length of every node's bar. */
function mostKeys(r: MigrationResult): number {
  return Math.max(1, ...r.phases.flatMap((phase) => Object.values(phase.keysByNode ?? {})));
}

/**
 * The drawing's text alternative: the owner and open states, every node's keys and every node's replies
 * by kind — the same counts the drawing draws, in words.
 */
export function phaseWords(r: MigrationResult, phase: MigrationPhase): string {
  const keys = r.nodes.map((node) => `${count(phase.keysByNode?.[node.address] ?? 0)} on ${node.name}`);
  const replies = r.nodes
    .filter((node) => repliesWords(phase.repliesByNode?.[node.address]) !== 'no reply')
    .map((node) => `${node.name}: ${repliesWords(phase.repliesByNode?.[node.address])}`);
  return [
    `${phase.name}: ${nodeName(r, phase.owner)} owns slot ${r.slot}`,
    ...phase.open.map((o) => `${nodeName(r, o.node)} ${o.state.toUpperCase()}`),
    `keys of the queue: ${keys.join(', ')}`,
    `replies: ${replies.length === 0 ? 'none in this phase' : replies.join('; ')}`,
  ].join('; ');
}

const W = 300;
const CARD_L = 126;
const PAD = 8;
const LINE = 16;
const ARROW_ROW = 18;

/**
 * The cluster in one phase, drawn: the client a line on the left, the nodes stacked on the right. Each node's
 * card says who owns the slot, which side has it open, and how many keys of the queue the node holds —
 * in figures and as a bar, so the bulk of the queue is seen leaving one node and arriving on the other.
 * From the client to each node asked, one arrow per kind of reply the node sent, marked with how many:
 * a call served 11 times and then redirected once is "11 served" and "1 redirected". Every count comes
 * from the answer's `keysByNode` and `repliesByNode`, and the drawing's name says the same in words.
 */
export function phaseDrawing(r: MigrationResult, phase: MigrationPhase): SafeHtml {
  const most = mostKeys(r);
  let y = 4;
  const cards: SafeHtml[] = [];
  r.nodes.forEach((node, i) => {
    const owns = node.address === phase.owner;
    const open = phase.open.find((o) => o.node === node.address);
    const keys = phase.keysByNode?.[node.address] ?? 0;
    const replies = phase.repliesByNode?.[node.address];
    const kinds = REPLY_KINDS.filter((kind) => (replies?.[kind] ?? 0) > 0);
    const tx = CARD_L + PAD;
    const lines: SafeHtml[] = [
      markup`<text class="xp-draw-name" x="${tx}" y="${y + 18}">${node.name}</text>`,
      markup`<text class="xp-draw-small" x="${tx}" y="${y + 18 + LINE}">${node.address}</text>`,
    ];
    let at = y + 18 + LINE;
    if (owns)
      lines.push(
        markup`<text class="xp-draw-state" x="${tx}" y="${(at += LINE)}">owns slot ${r.slot}</text>`,
      );
    if (open)
      lines.push(
        markup`<text class="xp-draw-open" x="${tx}" y="${(at += LINE)}">${open.state.toUpperCase()}</text>`,
      );
    // on two lines, so that "20,003 keys" stands out and the card stays narrow
    at += LINE + 1;
    lines.push(
      keys === 0
        ? markup`<text class="xp-draw-keys" x="${tx}" y="${at}" data-keys="0">no key of the queue</text>`
        : markup`<text class="xp-draw-keys" x="${tx}" y="${at}" data-keys="${keys}"><tspan class="xp-draw-count">${plural(keys, 'key')} </tspan><tspan x="${tx}" dy="${LINE}">of the queue</tspan></text>`,
    );
    if (keys > 0) at += LINE;
    // the bar: the node's share of the most keys any node held (none drawn for a node without any)
    const barY = at + 6;
    const barW = W - 4 - tx - PAD;
    if (keys > 0)
      lines.push(
        markup`<rect class="xp-draw-track" x="${tx}" y="${barY}" width="${barW}" height="7" rx="2" /><rect class="xp-draw-bar" x="${tx}" y="${barY}" width="${Math.max(2, (keys / most) * barW).toFixed(1)}" height="7" rx="2" />`,
      );
    const bottom = keys > 0 ? barY + 7 : at;
    const height = Math.max(bottom + PAD - y, kinds.length * ARROW_ROW + PAD * 2);
    const arrows = kinds.map((kind, k) => {
      const ay = y + PAD + 10 + k * ARROW_ROW;
      const n = replies![kind];
      return markup`<g class="xp-arrow xp-arrow-${kind}" data-kind="${kind}" data-count="${n}"><line x1="8" y1="${ay}" x2="${CARD_L - 7}" y2="${ay}" /><path d="M${CARD_L - 1} ${ay}l-7 -3.5v7z" /><text class="xp-chip" x="10" y="${ay - 3}">${count(n)} ${kind}</text></g>`;
    });
    cards.push(markup`<g class="xp-draw-node" data-node="${i + 1}" data-owner="${String(owns)}" data-keys="${keys}"${open && markup` data-open="${open.state}"`}>
  <rect class="xp-box xp-box-${(i % 3) + 1}${owns && ' is-owner'}" x="${CARD_L}" y="${y}" width="${W - CARD_L - 4}" height="${height}" rx="5" />
  ${lines}
  ${arrows}
</g>`);
    y += height + 8;
  });
  const height = y;
  return markup`<svg class="xp-draw" viewBox="0 0 ${W} ${height}" role="img" aria-label="${phaseWords(r, phase)}" data-drawing>
  <line class="xp-draw-client" x1="5" y1="4" x2="5" y2="${height - 8}" />
  ${cards}
</svg>`;
}

/** What the drawing's marks mean, under it: the arrows count replies, the bars count keys. */
export function drawingLegend(r: MigrationResult): SafeHtml {
  return markup`<p class="xp-draw-legend" data-legend>Arrows, from the client (the line on the left) to each node: how many replies of each kind the node sent in this phase — served (a value), refused (an error), retry (<code>TRYAGAIN</code>), redirected (<code>MOVED</code>, <code>ASK</code>). Bars: the queue’s keys on the node (of ${count(mostKeys(r))}), as it counts them.</p>`;
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
  ${drawingLegend(r)}
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
