// The workers' timeline, shown and read: drawn at the width of its place (and again when that width
// changes), then each claim read out — its mode, time, node and reply — by pointing at a mark, tapping
// it, or the arrow keys on the line under the drawing (a slider over the claims: Left and Right the
// previous and next claim of that mode, Up and Down the nearest claim of the other mode, Home and End).
// A ring marks the claim read on the drawing.

import type { MigrationResult } from '../../../server/contract/experiments/migration.ts';
import { show } from '../../lib/html.ts';
import { markWords, timelineGeometry, workerTimelines, type TimelineMark } from './worker-timeline.ts';

const wired = new WeakMap<HTMLElement, { runs: MigrationResult[]; width: number }>();

/** Draws `runs`' timelines into `host` at its width, and keeps them at its width. */
export function showTimelines(host: HTMLElement, runs: MigrationResult[]): void {
  const first = !wired.has(host);
  draw(host, runs);
  if (!first || typeof ResizeObserver === 'undefined') return;
  new ResizeObserver(() => {
    const state = wired.get(host);
    if (state && Math.abs(host.clientWidth - state.width) >= 8) draw(host, state.runs);
  }).observe(host);
}

function draw(host: HTMLElement, runs: MigrationResult[]): void {
  const width = host.clientWidth || undefined;
  wired.set(host, { runs, width: host.clientWidth });
  const drawing = workerTimelines(runs, width);
  if (!drawing) return;
  show(host, drawing);
  const g = timelineGeometry(runs, width);
  const read = host.querySelector<HTMLElement>('[data-timeline-read]');
  const svg = host.querySelector<SVGSVGElement>('svg.xp-timeline-svg');
  if (!read || !svg || g.marks.length === 0) return;
  liven(svg, read, g.marks, g.tops);
}

function liven(svg: SVGSVGElement, read: HTMLElement, marks: TimelineMark[], tops: number[]): void {
  const ring = svg.querySelector<SVGGElement>('[data-timeline-cursor]')!;
  let at = 0;
  const inLane = (i: number) => marks.filter((m) => m.lane === marks[i]!.lane);
  const say = (i: number) => {
    at = Math.max(0, Math.min(marks.length - 1, i));
    const mark = marks[at]!;
    const lane = inLane(at);
    const text = markWords(mark, lane.indexOf(mark), lane.length);
    read.textContent = text;
    read.setAttribute('aria-valuenow', String(at + 1));
    read.setAttribute('aria-valuetext', text);
    ring.setAttribute('visibility', 'visible');
    ring.setAttribute('transform', `translate(${(mark.x - 5).toFixed(1)} ${mark.y - 3})`);
  };
  /** The nearest claim to a time, in one lane. */
  const nearest = (lane: number, x: number) => {
    let best = -1;
    marks.forEach((m, i) => {
      if (m.lane !== lane) return;
      if (best < 0 || Math.abs(m.x - x) < Math.abs(marks[best]!.x - x)) best = i;
    });
    return best;
  };
  read.addEventListener('keydown', (event) => {
    const lanes = Math.max(...marks.map((m) => m.lane)) + 1;
    const mark = marks[at]!;
    let to = at;
    if (event.key === 'ArrowRight') to = marks[at + 1]?.lane === mark.lane ? at + 1 : at;
    else if (event.key === 'ArrowLeft') to = marks[at - 1]?.lane === mark.lane ? at - 1 : at;
    else if (event.key === 'Home') to = marks.findIndex((m) => m.lane === mark.lane);
    else if (event.key === 'End') to = marks.findLastIndex((m) => m.lane === mark.lane);
    else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      const lane = (mark.lane + (event.key === 'ArrowDown' ? 1 : lanes - 1)) % lanes;
      const found = nearest(lane, mark.x);
      if (found >= 0) to = found;
    } else return;
    event.preventDefault();
    say(to);
  });
  // a pointer over the drawing reads the claim nearest to it in the lane it is over; a tap the same
  const point = (event: PointerEvent) => {
    const box = svg.getBoundingClientRect();
    const scale = svg.viewBox.baseVal.width / box.width;
    const x = (event.clientX - box.left) * scale;
    const y = (event.clientY - box.top) * scale;
    const lane = Math.max(
      0,
      tops.findLastIndex((top) => top <= y),
    );
    const found = nearest(lane, x);
    if (found >= 0) say(found);
  };
  svg.addEventListener('pointermove', point);
  svg.addEventListener('pointerdown', point);
}
