// The slot map, read slot by slot: one focusable element (the map itself, as a slider over 0–16383),
// never 16,384. Arrow keys move by a slot (left, right) or a row of 128 (up, down), Page Up/Down by
// 1,024, Home and End to the ends; hover or tap reads the slot under the pointer. The readout under the
// map says the slot's number and its owner, and so does the slider's value for a screen reader.

import { SLOT_COUNT } from '../../../server/contract/keyspace/index.ts';
import { showInstead } from '../../lib/html.ts';
import { GRID_SIDE, ownerOf, slotGrid, type GridInput, type GridNode } from './slot-grid.ts';

const STEPS: Record<string, number> = {
  ArrowLeft: -1,
  ArrowRight: 1,
  ArrowUp: -GRID_SIDE,
  ArrowDown: GRID_SIDE,
  PageUp: -1024,
  PageDown: 1024,
};

function ownersOf(figure: HTMLElement): GridNode[] {
  return JSON.parse(figure.dataset.owners ?? '[]') as GridNode[];
}

/** The square around the slot read: made on the map's first reading, drawn over everything on it. */
function cursor(svg: SVGSVGElement): SVGRectElement {
  const drawn = svg.querySelector<SVGRectElement>('.xp-grid-cursor');
  if (drawn) return drawn;
  const rect = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  rect.setAttribute('class', 'xp-grid-cursor');
  rect.setAttribute('width', '1');
  rect.setAttribute('height', '1');
  svg.append(rect);
  return rect;
}

function say(svg: SVGSVGElement, slot: number): void {
  const figure = svg.closest<HTMLElement>('[data-slot-grid]')!;
  const nodes = ownersOf(figure);
  const owner = nodes[ownerOf(nodes, slot)];
  const text = `slot ${slot}: ${owner ? `${owner.name}${owner.address ? ` ${owner.address}` : ''}` : 'no owner'}`;
  svg.setAttribute('aria-valuenow', String(slot));
  svg.setAttribute('aria-valuetext', text);
  const square = cursor(svg);
  square.setAttribute('x', String(slot % GRID_SIDE));
  square.setAttribute('y', String(Math.floor(slot / GRID_SIDE)));
  figure.querySelector('[data-grid-readout]')!.textContent = text;
}

/** Makes every map under `root` a slider, starting on its first mark's slot. */
function liven(root: Element): void {
  for (const svg of root.querySelectorAll<SVGSVGElement>('svg[data-grid]:not([role="slider"])')) {
    const first = svg.querySelector<SVGElement>('[data-mark]')?.dataset.slot ?? '0';
    svg.setAttribute('role', 'slider');
    svg.setAttribute('tabindex', '0');
    svg.setAttribute('aria-label', `${svg.getAttribute('aria-label')} Arrow keys read a slot.`);
    svg.setAttribute('aria-valuemin', '0');
    svg.setAttribute('aria-valuemax', String(SLOT_COUNT - 1));
    svg.setAttribute('aria-valuenow', first);
  }
}

/** Draws a map in place of the one shown (`figure`) and makes it readable. */
export function showGrid(figure: Element, input: GridInput): void {
  const around = figure.parentElement!;
  showInstead(figure, slotGrid(input));
  liven(around);
}

function slotAt(svg: SVGSVGElement, event: PointerEvent): number {
  const box = svg.getBoundingClientRect();
  // the viewBox is -3 … 131 on both axes: 134 units across the box
  const unit = box.width / 134;
  const col = Math.floor((event.clientX - box.left) / unit - 3);
  const row = Math.floor((event.clientY - box.top) / unit - 3);
  if (col < 0 || col >= GRID_SIDE || row < 0 || row >= GRID_SIDE) return -1;
  return row * GRID_SIDE + col;
}

/** Listens once on `root` for every map drawn inside it, now or later. */
export function readGrids(root: HTMLElement): void {
  liven(root);
  const target = (event: Event) => (event.target as Element).closest<SVGSVGElement>('svg[data-grid]');
  root.addEventListener('keydown', (event) => {
    const svg = target(event);
    if (!svg) return;
    const now = Number(svg.getAttribute('aria-valuenow') ?? 0);
    const next =
      event.key === 'Home'
        ? 0
        : event.key === 'End'
          ? SLOT_COUNT - 1
          : STEPS[event.key] === undefined
            ? null
            : Math.min(SLOT_COUNT - 1, Math.max(0, now + STEPS[event.key]!));
    if (next === null) return;
    event.preventDefault();
    say(svg, next);
  });
  root.addEventListener('focusin', (event) => {
    const svg = target(event);
    if (svg) say(svg, Number(svg.getAttribute('aria-valuenow') ?? 0));
  });
  const point = (event: PointerEvent) => {
    const svg = target(event);
    if (!svg) return;
    const slot = slotAt(svg, event);
    if (slot >= 0) say(svg, slot);
  };
  root.addEventListener('pointermove', point);
  root.addEventListener('pointerdown', point);
}
