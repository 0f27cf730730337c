// The node view of the slot part: the 16,384 slots split among the cluster's nodes, the reader's queue
// and the reserve pinned on them with their owner nodes; then, from a route run, the MOVED a non-owner
// answers, where the keys were stored, the scattered counterfactual and the native answers (a reshard
// run has its own view, reshard-view.ts). Markup from markup`…`, built the same way on the server (the fallback)
// and in the browser.

import type { RouteNode, RouteResult } from '../../../server/contract/experiments/route.ts';
import { reserveSlot, versionKey } from '../../../server/contract/keyspace/index.ts';
import { queueKeyPins } from './slot-view.ts';
import { markup, type SafeHtml } from '../../lib/html.ts';
import { kindBadge, textKind } from './reply-badge.ts';
import { slotGrid, type GridMark, type GridNode } from './slot-grid.ts';

/** The cluster's primaries as the map draws them: node 1, 2, 3 in slot order, with their addresses. */
export function gridNodes(nodes: RouteNode[]): GridNode[] {
  return nodes.map((node, i) => ({
    name: `node ${i + 1}`,
    address: node.address === 'sandbox' ? undefined : node.address,
    slots: node.slots,
    replicas: node.replicas,
  }));
}

/** The queue and the reserve, marked on the map (an empty name's keys each on its own slot). */
export function routeMarks(queue: string, slot: number): GridMark[] {
  return [
    ...queueKeyPins(queue, slot, 'queue'),
    { label: versionKey(), slot: reserveSlot(), kind: 'reserve' },
  ];
}

/** The slot map of the route experiment: the nodes' ranges, the queue and the reserve on them. */
export function nodeMap(nodes: RouteNode[], marks: GridMark[]): SafeHtml {
  return slotGrid({ nodes: gridNodes(nodes), marks });
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
  <p>${kindBadge(textKind(r.moved.reply))} <code data-reply>${r.moved.reply}</code></p></div>
<div class="xp-call" data-route="served"><p class="xp-side-name">Enqueue and claim through a cluster client</p>
  <ul class="xp-call-keys">${served}</ul>
  <p>${r.served.oneNode ? markup`<span class="xp-badge is-ok">one node</span> every key of the queue on its owner` : markup`<span class="xp-badge is-refused">spread</span>`}</p></div>
<div class="xp-call" data-route="scattered"><p class="xp-side-name">The same keys without braces</p>
  <ul class="xp-call-keys">${scattered}</ul>
  <p>on ${r.scattered.nodeCount} node(s); a script declaring them: ${kindBadge(textKind(r.scattered.reply))} <code data-reply>${r.scattered.reply}</code></p></div>
<div class="xp-call" data-route="native"><p class="xp-side-name"><code>${r.native.command[0]!}</code>, exact keys</p>
  <p>to ${node(r.native.nonOwner.asked)}: ${kindBadge(textKind(r.native.nonOwner.reply))} <code data-reply="non-owner">${r.native.nonOwner.reply}</code></p>
  <p>to the owner, ${node(r.native.owner.asked)}: ${kindBadge(textKind(r.native.owner.reply))} <code data-reply="owner">${r.native.owner.reply}</code></p>
  <p class="xp-note">keys of the call on the owner before and after: ${r.native.keysBefore} and ${r.native.keysAfter} — ${r.native.written ? 'something was written' : 'nothing written'}</p></div>`;
}
