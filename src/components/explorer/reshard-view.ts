// The slot migration as it happened: one panel per phase, in order, each with the node map of that
// phase (which node owns the slot, which has it open, the queue's keys on each side), the migration
// commands that led to it, and the probes — the command, the node asked, the reply as the node sent it.
// Then what a cluster client did with its claim meanwhile. Nodes are named as on the map: node 1/2/3,
// then the address. Keys are shown as their bytes are (no CSS changes their case). Markup from markup`…`, the
// same on the server (the fallback) and in the browser.

import type {
  MigrationPhase,
  MigrationProbe,
  MigrationResult,
  ProbeReply,
} from '../../../server/contract/experiments/migration.ts';
import { joined, markup, type SafeHtml } from '../../lib/html.ts';
import { keysOn, modeTitle, ms, servedBadge, stepper, words } from './migration-stepper.ts';
import { replyBadge } from './reply-badge.ts';
import { cliReply } from './wire-view.ts';

function namer(r: MigrationResult) {
  return (address: string) => {
    const node = r.nodes.find((n) => n.address === address);
    return node
      ? markup`<span class="xp-node-name">${node.name}</span> <code>${address}</code>`
      : markup`<code>${address}</code>`;
  };
}

/** A reply as redis-cli prints it, and its kind's badge before it. */
function replyCell(reply: ProbeReply, attr = ''): SafeHtml {
  return markup`${replyBadge(reply)}<pre class="xp-wire-reply" data-reply="${attr}">${cliReply(reply)}</pre>`;
}

/** Atomic mode, while the slot moved: how often the node answered the probe alike before it redirected. */
function served(p: MigrationProbe): SafeHtml | '' {
  if (p.served === undefined) return '';
  const first =
    p.firstReply !== undefined &&
    markup`<pre class="xp-wire-reply" data-first-reply>${cliReply(p.firstReply)}</pre>`;
  return markup`${servedBadge(p)}${first} then `;
}

const KEYS_LISTED = 6;

function phaseMap(r: MigrationResult, phase: MigrationPhase): SafeHtml {
  const cards = r.nodes.map((node, i) => {
    const owns = node.address === phase.owner;
    const open = phase.open.find((o) => o.node === node.address);
    const keys = keysOn(r, phase, node.address);
    const marks = joined(
      [
        owns && markup`<span class="xp-badge is-ok">owns slot ${r.slot}</span>`,
        open && markup`<span class="xp-badge is-refused">${open.state.toUpperCase()}</span>`,
      ],
      ' ',
    );
    // a queue of thousands of jobs: its own keys and first rows by name, and every key counted on the node
    const listed = keys.slice(0, KEYS_LISTED);
    const counted = phase.keysByNode?.[node.address] ?? keys.length;
    const list = markup`${
      listed.length > 0 &&
      markup`<ul class="xp-phase-keys">${listed.map((k) => markup`<li><code class="xp-key">${k}</code></li>`)}</ul>`
    }<p class="xp-hint" data-node-keys="${counted}">${counted === 0 ? 'no key of the queue' : `${counted.toLocaleString('en')} key${counted === 1 ? '' : 's'} of the queue on this node`}</p>`;
    return markup`<li class="xp-phase-node${owns && ' is-owner'}" data-node="${i + 1}"><p><span class="xp-swatch xp-node-${i % 3}" aria-hidden="true"></span><span class="xp-node-name">${node.name}</span> <code>${node.address}</code> ${marks}</p>${list}</li>`;
  });
  return markup`<ul class="xp-phase-map" aria-label="the nodes in this phase">${cards}</ul>`;
}

function phaseView(r: MigrationResult, phase: MigrationPhase, index: number): SafeHtml {
  const name = namer(r);
  const steps =
    phase.steps.length > 0 &&
    markup`<details class="xp-phase-steps"><summary>${phase.steps.length} migration command(s)</summary><ol>${phase.steps.map(
      (s) =>
        markup`<li><code class="xp-key">${words(s.command)}</code> to ${name(s.node)} → <code class="xp-key">${cliReply(s.reply)}</code></li>`,
    )}</ol></details>`;
  const probes = phase.probes.map(
    (p) => markup`<li class="xp-probe" data-probe="${p.label}"><p class="xp-probe-label">${p.label}</p>
  <p>${p.asking && markup`<code class="xp-key">ASKING</code>, then `}<code class="xp-key">${words(p.command)}</code> to ${name(p.node)}</p>
  <div class="xp-probe-reply">${served(p)}${replyCell(p.reply)}</div></li>`,
  );
  return markup`<li class="xp-phase" data-phase="${phase.name}">
  <h4 class="xp-phase-title">${index + 1}. ${phase.name}</h4>
  <p>${phase.summary}</p>
  ${phaseMap(r, phase)}
  ${steps}
  ${probes.length > 0 && markup`<ol class="xp-probes">${probes}</ol>`}
</li>`;
}

/** Consecutive identical lines of the client's wire as one, with a count. */
function clientView(r: MigrationResult): SafeHtml {
  const name = namer(r);
  const runs: Array<{ node: string; line: string; reply: string; count: number }> = [];
  for (const entry of r.client.wire) {
    const reply = cliReply(entry.reply);
    const last = runs.at(-1);
    if (last && last.node === entry.node && last.line === entry.line && last.reply === reply) last.count += 1;
    else runs.push({ node: entry.node, line: entry.line, reply, count: 1 });
  }
  const items = runs.map(
    (run) =>
      markup`<li><code class="xp-key">${run.line}</code> to ${name(run.node)} → <code class="xp-key">${run.reply}</code>${run.count > 1 && markup` <span class="xp-hint">× ${run.count}</span>`}</li>`,
  );
  const sent =
    r.mode === 'atomic'
      ? markup`A cluster client (iovalkey <code>Cluster</code>) sent claims one after another while the slot moved. What it wrote for the first, and for the one that met the hand-over, node by node:`
      : markup`A cluster client (iovalkey <code>Cluster</code>, retrying <code>TRYAGAIN</code> every 100 ms) sent the claim when the queue was split. What it wrote, node by node:`;
  return markup`<div class="xp-call" data-reshard="client"><p>${sent}</p>
  <ol class="xp-call-keys">${items}</ol>
  <div class="xp-probe-reply">Its answer: ${replyCell(r.client.reply, 'client')}</div></div>`;
}

/** Atomic mode: the states CLUSTER GETSLOTMIGRATIONS went through, and every key on the new owner. */
function atomicView(r: MigrationResult): SafeHtml | '' {
  const a = r.atomic;
  if (!a) return '';
  const name = namer(r);
  const states = a.states.map(
    (m) =>
      markup`<li><span class="xp-hint">+${ms(m.atMs)} ms</span> ${m.operation} on ${name(m.node)}: <code class="xp-key">${m.state}</code></li>`,
  );
  const keys = a.keys;
  return markup`<div class="xp-call" data-reshard="states"><p><code class="xp-key">CLUSTER GETSLOTMIGRATIONS</code>, read every few milliseconds while the slot moved (${ms(a.moveMs)} ms; back in ${ms(a.backMs)} ms):</p>
  <ol class="xp-call-keys">${states}</ol>
  <p>${keys.together ? markup`<span class="xp-badge is-ok">every key</span>` : markup`<span class="xp-badge is-refused">keys missing</span>`} ${keys.after.toLocaleString('en')} keys on the new owner: the ${keys.before.toLocaleString('en')} the source held, plus the probes' one new row; ${keys.leftOnSource} left on the source.</p></div>`;
}

/** What a reshard run showed. */
export function reshardView(r: MigrationResult): SafeHtml {
  const name = namer(r);
  const how =
    r.mode === 'atomic'
      ? markup`atomically, with one <code class="xp-key">CLUSTER MIGRATESLOTS</code>, with ${(r.atomic?.jobCount ?? r.jobs.length).toLocaleString('en')} jobs in the queue`
      : 'key by key';
  return markup`<div class="xp-call" data-reshard="summary"><p>Slot ${r.slot} of <code class="xp-key">${r.queue}</code> moved from ${name(r.source)} to ${name(r.target)} and back, ${how} (Valkey ${r.server}, mode <code>${r.mode}</code>). ${r.clean ? markup`<span class="xp-badge is-ok">clean</span> every node names one owner, no slot open` : markup`<span class="xp-badge is-refused">not clean</span>`}</p></div>
${atomicView(r)}
<ol class="xp-phases" data-reshard="phases">${r.phases.map((phase, i) => phaseView(r, phase, i))}</ol>
${clientView(r)}`;
}

/** A run as the reader first sees it: one line of what moved, the stepper, and the rest on demand. */
export function reshardPanel(r: MigrationResult): SafeHtml {
  const name = namer(r);
  const size = r.jobCount ?? r.atomic?.jobCount;
  return markup`<p class="xp-reshard-line">Slot ${r.slot} of <code class="xp-key">${r.queue}</code>${size !== undefined && `, ${size.toLocaleString('en')} jobs,`} from ${name(r.source)} to ${name(r.target)} and back (Valkey ${r.server})${r.moveMs !== undefined && `, moved in ${ms(r.moveMs)} ms`}. ${r.clean ? markup`<span class="xp-badge is-ok">clean</span>` : markup`<span class="xp-badge is-refused">not clean</span>`}</p>
${stepper(r)}
<details class="xp-reshard-all" data-reshard-all><summary>Every phase as a list, the cluster client’s claim${r.atomic ? ', the migration’s states' : ''}</summary>${reshardView(r)}</details>`;
}

/** The two modes, one under the other at the explorer's full width; the timelines of both above them. */
export function reshardColumns(): SafeHtml {
  const column = (mode: 'keys' | 'atomic', note: string) =>
    markup`<section class="xp-reshard-mode" data-reshard-mode="${mode}"><h4 class="xp-phase-title">${modeTitle(mode)}</h4><div data-column><p class="xp-note">${note}</p></div></section>`;
  return markup`<div class="xp-reshard-modes" data-reshard-modes><div data-reshard-timeline></div>${column('keys', 'Not run yet: “Move its slot, and back”.')}${column('atomic', 'Not run yet: “Move it atomically (Valkey 9.1)” runs it on a second cluster, of Valkey 9.1.')}</div>`;
}
