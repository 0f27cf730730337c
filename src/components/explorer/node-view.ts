// The node view of the slot part: the 16,384 slots split among the cluster's nodes, the reader's queue
// and the reserve pinned on them with their owner nodes; then, from a route run, the MOVED a non-owner
// answers, where the keys were stored, the scattered counterfactual and the native answers (a reshard
// run has its own view, reshard-view.ts). Markup from markup`…`, built the same way on the server (the fallback)
// and in the browser.

import type { RouteNode, RouteResult } from '../../../server/experiments/route.ts';
import { SLOT_COUNT } from '../../../server/keyspace/index.ts';
import { joined, markup, type SafeHtml } from '../../lib/html.ts';

export interface NodePin {
  label: string;
  slot: number;
  kind: 'queue' | 'reserve';
}

const ranges = (node: RouteNode) => node.slots.map(([a, b]) => `${a}–${b}`).join(', ');

/** A primary's replicas, named after it: they hold copies of its slots and serve no run. */
function replicaNote(node: RouteNode): SafeHtml | '' {
  if (!node.replicas?.length) return '';
  const names = joined(
    node.replicas.map((address) => markup`<code data-node-replica>${address}</code>`),
    ', ',
  );
  return markup`, replica${node.replicas.length === 1 ? '' : 's'} ${names}`;
}

function ownerIndex(nodes: RouteNode[], slot: number): number {
  return nodes.findIndex((node) => node.slots.some(([a, b]) => slot >= a && slot <= b));
}

/** The strip: each node's ranges in its own shade, the pins on top, and a legend naming each owner. */
export function nodeStrip(nodes: RouteNode[], pins: NodePin[]): SafeHtml {
  const bands = nodes.flatMap((node, i) =>
    node.slots.map(
      ([a, b]) =>
        markup`<rect class="xp-node-band xp-node-${i % 3}" x="${a}" y="0" width="${b - a + 1}" height="40"><title>node ${i + 1} (${node.address}): slots ${a}–${b}</title></rect>`,
    ),
  );
  const marks = pins.map(
    (p) =>
      markup`<rect class="xp-pin xp-pin-${p.kind}" x="${Math.max(0, p.slot - 60)}" y="8" width="120" height="32"><title>${p.label}: slot ${p.slot}</title></rect>`,
  );
  const described = nodes.map((node, i) => `node ${i + 1} holds ${ranges(node)}`).join('; ');
  const nodeList = nodes.map(
    (node, i) =>
      markup`<li><span class="xp-swatch xp-node-${i % 3}" aria-hidden="true"></span>node ${i + 1} <code data-node-address>${node.address}</code> <span data-node-slots>${ranges(node)}</span>${replicaNote(node)}</li>`,
  );
  const pinList = pins.map((p) => {
    const owner = ownerIndex(nodes, p.slot);
    const on = owner >= 0 ? `node ${owner + 1}` : 'no node';
    return markup`<li><span class="xp-swatch xp-pin-${p.kind}" aria-hidden="true"></span><code>${p.label}</code> → slot <b data-pin="${p.kind}">${p.slot}</b> on <b data-owner="${p.kind}">${on}</b></li>`;
  });
  return markup`<figure class="xp-slot-map xp-node-map">
  <svg viewBox="0 0 ${SLOT_COUNT} 40" preserveAspectRatio="none" role="img" aria-label="The ${SLOT_COUNT.toLocaleString('en')} slots over ${nodes.length} nodes: ${described}">${bands}${marks}</svg>
  <div class="xp-axis" aria-hidden="true"><span>0</span><span>8192</span><span>16383</span></div>
  <ul class="xp-legend">${nodeList}</ul>
  <ul class="xp-legend">${pinList}</ul>
</figure>`;
}

/** The queue and the reserve as pins. */
export function routePins(queue: string, slot: number): NodePin[] {
  return [
    { label: `emq:{${queue}}:*`, slot, kind: 'queue' },
    { label: '{emq}:version', slot: 9051, kind: 'reserve' },
  ];
}

/** Said when the queue lands on the reserve's slot: no key can collide, the slot is shared. */
export function sharedSlotNote(queue: string, slot: number): SafeHtml {
  return slot === 9051
    ? markup`<p class="xp-note" data-shares-reserve>The queue <code>${queue}</code> lands on slot 9051 — the reserve’s slot, on the same node as <code>{emq}:version</code>. No key can collide (queue keys begin with <code>e</code>, reserved keys with <code>{</code>); the slot is merely shared.</p>`
    : markup``;
}

/** What a route run showed. */
export function routeView(r: RouteResult): SafeHtml {
  const node = (address: string) => {
    const i = r.nodes.findIndex((n) => n.address === address);
    return i >= 0 ? markup`node ${i + 1} <code>${address}</code>` : markup`<code>${address}</code>`;
  };
  const served = r.served.keys.map((k) => markup`<li><code>${k.key}</code> on ${node(k.storedOn)}</li>`);
  const scattered = r.scattered.keys.map(
    (k) => markup`<li><code>${k.key}</code> → slot ${k.slot} on ${node(k.owner)}</li>`,
  );
  return markup`${sharedSlotNote(r.queue, r.slot)}
<div class="xp-call" data-route="moved"><p class="xp-side-name">A node that does not own slot ${r.slot}</p>
  <p><code>${r.moved.command.join(' ')}</code> to ${node(r.moved.asked)}</p>
  <p><span class="xp-badge is-refused">redirected</span> <code data-reply>${r.moved.reply}</code></p></div>
<div class="xp-call" data-route="served"><p class="xp-side-name">Enqueue and claim through a cluster client</p>
  <ul class="xp-call-keys">${served}</ul>
  <p>${r.served.oneNode ? markup`<span class="xp-badge is-ok">one node</span> every key of the queue on its owner` : markup`<span class="xp-badge is-refused">spread</span>`}</p></div>
<div class="xp-call" data-route="scattered"><p class="xp-side-name">The same keys without braces</p>
  <ul class="xp-call-keys">${scattered}</ul>
  <p>on ${r.scattered.nodeCount} node(s); a script declaring them: <span class="xp-badge is-refused">refused</span> <code data-reply>${r.scattered.reply}</code></p></div>
<div class="xp-call" data-route="native"><p class="xp-side-name"><code>${r.native.command[0]!}</code>, exact keys</p>
  <p>to ${node(r.native.nonOwner.asked)}: <code data-reply="non-owner">${r.native.nonOwner.reply}</code></p>
  <p>to the owner, ${node(r.native.owner.asked)}: <code data-reply="owner">${r.native.owner.reply}</code></p>
  <p class="xp-note">keys of the call on the owner before and after: ${r.native.keysBefore} and ${r.native.keysAfter} — ${r.native.written ? 'something was written' : 'nothing written'}</p></div>`;
}
