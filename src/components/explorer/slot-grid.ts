// The slot map: all 16,384 slots as a 128 × 128 grid (slot n at row n / 128, column n % 128), each
// coloured by the node that owns it, each node's largest range labelled, the slots that matter marked
// (the reader's queue, the reserve's 9051), a slot open mid-migration drawn half source, half target.
// A node's ranges are a few rectangles each, not 16,384 cells, so the page stays light. The same markup
// on the server (the fallback, built at build time) and in the browser; slot-grid-reader.ts makes it
// readable slot by slot. Free of Node and DOM APIs.

import { SLOT_COUNT } from '../../../server/contract/keyspace/index.ts';
import { joined, markup, type SafeHtml } from '../../lib/html.ts';

export const GRID_SIDE = 128;

export interface GridNode {
  /** `node 1`, `node 2`, … in slot order. */
  name: string;
  /** `host:port`, when the cluster told it. */
  address?: string;
  /** Inclusive ranges. */
  slots: Array<[number, number]>;
  replicas?: string[];
}

export interface GridMark {
  slot: number;
  label: string;
  kind: 'queue' | 'reserve' | 'other';
}

/** A slot open in a migration: the node that exports it and the one that imports it (indexes). */
export interface GridOpen {
  slot: number;
  migrating: number;
  importing: number;
}

export interface GridInput {
  nodes: GridNode[];
  marks: GridMark[];
  open?: GridOpen | null;
  /** Said before the ranges in the accessible name, e.g. "in this phase". */
  when?: string;
}

const rangeText = ([a, b]: [number, number]) => (a === b ? `${a}` : `${a}–${b}`);
const rangesText = (node: GridNode) => node.slots.map(rangeText).join(', ');
const ownerClass = (i: number) => `xp-owner-${(i % 3) + 1}`;

export function ownerOf(nodes: GridNode[], slot: number): number {
  return nodes.findIndex((node) => node.slots.some(([a, b]) => slot >= a && slot <= b));
}

/** The nodes with one slot handed to another node: what the map shows once a move has flipped it. */
export function withSlotOwner(nodes: GridNode[], slot: number, owner: number): GridNode[] {
  return nodes.map((node, i) => {
    const slots = node.slots.flatMap(([a, b]): Array<[number, number]> => {
      if (slot < a || slot > b) return [[a, b]];
      const parts: Array<[number, number]> = [];
      if (a < slot) parts.push([a, slot - 1]);
      if (slot < b) parts.push([slot + 1, b]);
      return parts;
    });
    if (i === owner && ownerOf([node], slot) < 0) slots.push([slot, slot]);
    return { ...node, slots: slots.sort((x, y) => x[0] - y[0]) };
  });
}

/** A range as at most three rectangles: the rest of its first row, its whole rows, its last row's start. */
function rangeRects([a, b]: [number, number]): Array<{ x: number; y: number; w: number; h: number }> {
  const ra = Math.floor(a / GRID_SIDE);
  const rb = Math.floor(b / GRID_SIDE);
  const ca = a % GRID_SIDE;
  const cb = b % GRID_SIDE;
  if (ra === rb) return [{ x: ca, y: ra, w: cb - ca + 1, h: 1 }];
  const rects = [];
  const fullFrom = ca === 0 ? ra : ra + 1;
  const fullTo = cb === GRID_SIDE - 1 ? rb : rb - 1;
  if (ca !== 0) rects.push({ x: ca, y: ra, w: GRID_SIDE - ca, h: 1 });
  if (fullTo >= fullFrom) rects.push({ x: 0, y: fullFrom, w: GRID_SIDE, h: fullTo - fullFrom + 1 });
  if (cb !== GRID_SIDE - 1) rects.push({ x: 0, y: rb, w: cb + 1, h: 1 });
  return rects;
}

/** A node's ranges as one path: each rectangle a subpath, outlined in the page's colour by the sheet. */
function band(node: GridNode, i: number): SafeHtml {
  const d = node.slots
    .flatMap(rangeRects)
    .map((r) => `M${r.x} ${r.y}h${r.w}v${r.h}h${-r.w}Z`)
    .join('');
  return markup`<path class="xp-band ${ownerClass(i)}" d="${d}" />`;
}

/** The node's name and its largest range, in the middle of that range's whole rows. */
function label(node: GridNode): SafeHtml | '' {
  const largest = [...node.slots].sort((x, y) => y[1] - y[0] - (x[1] - x[0]))[0];
  if (!largest || largest[1] - largest[0] < GRID_SIDE * 12) return '';
  const top = Math.ceil(largest[0] / GRID_SIDE);
  const bottom = Math.floor((largest[1] + 1) / GRID_SIDE);
  const y = (top + bottom) / 2;
  return markup`<text class="xp-band-label" x="64" y="${y - 1.5}">${node.name}</text><text class="xp-band-label is-range" x="64" y="${y + 5}">${rangeText(largest)}</text>`;
}

function cell(slot: number) {
  return { x: slot % GRID_SIDE, y: Math.floor(slot / GRID_SIDE) };
}

/** A coordinate as the map writes it: two decimals at most. */
const at = (v: number) => Math.round(v * 100) / 100;

/** A square, a diamond or a circle around (cx, cy), as one closed subpath; `h` is half its size. */
function outline(kind: GridMark['kind'], cx: number, cy: number, h: number): string {
  if (kind === 'queue') return `M${at(cx - h)} ${at(cy - h)}h${at(2 * h)}v${at(2 * h)}h${at(-2 * h)}Z`;
  if (kind === 'other')
    return `M${at(cx)} ${at(cy - h)}L${at(cx + h)} ${at(cy)}L${at(cx)} ${at(cy + h)}L${at(cx - h)} ${at(cy)}Z`;
  return `M${at(cx - h)} ${at(cy)}a${at(h)} ${at(h)} 0 1 0 ${at(2 * h)} 0a${at(h)} ${at(h)} 0 1 0 ${at(-2 * h)} 0Z`;
}

/** A mark's line, 0.7 wide, centred this far from the slot's centre: a square, a diamond, a circle. */
const MARK_SIZE: Record<GridMark['kind'], number> = { queue: 2.3, other: 2.9, reserve: 2.6 };
const LINE = 0.7;

/**
 * A mark: its line as a ring (the space between two outlines, filled in the text's colour), its halo
 * the ring's stroke in the page's colour, painted under the fill (explorer.css), so it reads on any
 * band — one element, where a halo under a line took two. The ring carries the mark's kind and slot.
 */
function mark(m: GridMark): SafeHtml {
  const { x, y } = cell(m.slot);
  const size = MARK_SIZE[m.kind];
  // a diamond's corners move √2 times as far as its sides for the same width of line
  const grow = m.kind === 'other' ? (LINE / 2) * Math.SQRT2 : LINE / 2;
  const d = outline(m.kind, x + 0.5, y + 0.5, size + grow) + outline(m.kind, x + 0.5, y + 0.5, size - grow);
  return markup`<path class="xp-mark" d="${d}" data-mark="${m.kind}" data-slot="${m.slot}" />`;
}

function openCell(open: GridOpen): SafeHtml {
  const { x, y } = cell(open.slot);
  return markup`<g class="xp-mark-open" data-open-slot="${open.slot}"><rect class="${ownerClass(open.migrating)}" x="${x - 2}" y="${y - 2}" width="2.5" height="5" /><rect class="${ownerClass(open.importing)}" x="${x + 0.5}" y="${y - 2}" width="2.5" height="5" /><rect class="xp-mark-halo" x="${x - 2}" y="${y - 2}" width="5" height="5" /><rect class="xp-mark-ink is-dashed" x="${x - 2}" y="${y - 2}" width="5" height="5" /></g>`;
}

/** The ranges in words: the map's text alternative, and its accessible name. */
export function gridWords(input: GridInput): string {
  const owners = input.nodes.map((node) => `${node.name} holds ${rangesText(node)}`).join('; ');
  const marks = input.marks
    .map((m) => {
      const owner = input.nodes[ownerOf(input.nodes, m.slot)];
      return `${m.label} on slot ${m.slot}${owner ? `, ${owner.name}` : ''}`;
    })
    .join('; ');
  const open = input.open
    ? `; slot ${input.open.slot} MIGRATING on ${input.nodes[input.open.migrating]?.name}, IMPORTING on ${input.nodes[input.open.importing]?.name}`
    : '';
  return `The ${SLOT_COUNT.toLocaleString('en')} slots${input.when ? ` ${input.when}` : ''}: ${owners}. ${marks}${open}.`;
}

export function slotGrid(input: GridInput): SafeHtml {
  const { nodes, marks, open } = input;
  const owners = JSON.stringify(
    nodes.map((n) => ({ name: n.name, address: n.address ?? '', slots: n.slots })),
  );
  const nodeList = nodes.map(
    (node, i) =>
      markup`<li class="xp-swatched xp-legend-owner-${(i % 3) + 1}">${node.name} ${node.address && markup`<code data-node-address>${node.address}</code> `}${rangesText(node)}${
        !!node.replicas?.length &&
        markup`, replica${node.replicas.length === 1 ? '' : 's'} ${joined(
          node.replicas.map((address) => markup`<code data-node-replica>${address}</code>`),
          ', ',
        )}`
      }</li>`,
  );
  const markList = marks.map((m) => {
    const owner = ownerOf(nodes, m.slot);
    const on = owner >= 0 ? nodes[owner]!.name : 'no node';
    return markup`<li class="xp-mark-key is-${m.kind}"><code>${m.label}</code> → slot <b data-pin="${m.kind}">${m.slot}</b> on <b data-owner="${m.kind}">${on}</b></li>`;
  });
  const openItem =
    open &&
    markup`<li data-open>slot ${open.slot}: <b>MIGRATING</b> on ${nodes[open.migrating]?.name}, <b>IMPORTING</b> on ${nodes[open.importing]?.name}</li>`;
  // The nodes' key says what the map's labels cannot: a node's address, its replicas, a range beside
  // its largest, a node too small to label. Where each node is one labelled range it would only say
  // again what its band says (and the map's accessible name says it all), so it is left out.
  const labelsSayAll = nodes.every(
    (n) => n.slots.length === 1 && !n.address && !n.replicas?.length && label(n) !== '',
  );
  return markup`<figure class="xp-grid" data-slot-grid data-owners="${owners}">
  <svg class="xp-grid-svg" viewBox="-3 -3 134 134" role="img" aria-label="${gridWords(input)}" data-grid>${nodes.map(band)}${nodes.map(label)}${open && openCell(open)}${marks.map((m) => mark(m))}</svg>
  <figcaption class="xp-grid-caption">
    <p class="xp-grid-readout needs-js" data-grid-readout>Hover, tap or arrow-key the map to read a slot’s owner.</p>
    ${!labelsSayAll && markup`<ul class="xp-legend">${nodeList}</ul>`}
    <ul class="xp-legend">${markList}${openItem}</ul>
  </figcaption>
</figure>`;
}

/** The sandbox's starting layout, before the cluster has been asked: three even ranges, no address. */
export function startingNodes(ranges: ReadonlyArray<readonly [number, number]>): GridNode[] {
  return ranges.map(([a, b], i) => ({ name: `node ${i + 1}`, slots: [[a, b]] }));
}
