// The queue's worker through each move, each mode on a time axis of its own — the server's
// milliseconds since the move began, from 0 to the move's end — drawn at the width it is shown at (one unit a CSS pixel, so its text is 12 px
// or more on any screen): per mode a labelled row for each kind of reply (served, retry, redirected,
// refused), every claim a mark on its row, the move shaded, the longest stretch without a served claim
// bracketed. Each mark can be read (timeline-reader.ts: hover, tap, arrow keys) as its time, node and
// reply. A mode whose answer has no worker yet is said so, never drawn empty. Free of Node and DOM APIs.

import {
  isErrorReply,
  replyKind,
  type MigrationResult,
  type ReplyKind,
  type WorkerTimeline,
} from '../../../server/contract/experiments/migration.ts';
import { markup, type SafeHtml } from '../../lib/html.ts';
import { kindBadge } from './reply-badge.ts';
import { modeTitle, ms } from './migration-stepper.ts';

const KINDS: ReplyKind[] = ['served', 'retry', 'redirected', 'refused'];
/** Where the rows' names end and the axis begins; the axis ends a little before the right edge. */
const LABELS = 82;
const RIGHT_GAP = 16;
const ROW = 15;
const MARK_H = 11;
const MARK_W = 4;
/** A lane's title: on one line where the drawing is wide enough, else on two. */
const titleHeight = (w: number) => (w >= 520 ? 20 : 36);
const AXIS = 24;
/** The width drawn when none is measured (the server's fallback, a test without layout). */
export const TIMELINE_WIDTH = 640;

type Drawn = MigrationResult & { worker: WorkerTimeline };

/** One claim as the reader reads it: where it is drawn, and what it was. */
export interface TimelineMark {
  lane: number;
  mode: MigrationResult['mode'];
  atMs: number;
  node: string;
  kind: ReplyKind;
  reply: string;
  x: number;
  y: number;
}

/** Where the worker waited longest: the widest gap between served claims (or the move's ends). */
function longestGap(worker: WorkerTimeline, end: number): [number, number] {
  const served = worker.claims
    .filter((c) => replyKind(c.reply) === 'served' && c.atMs >= 0)
    .map((c) => c.atMs);
  const edges = [0, ...served, end].sort((a, b) => a - b);
  let best: [number, number] = [0, 0];
  for (let i = 1; i < edges.length; i += 1)
    if (edges[i]! - edges[i - 1]! > best[1] - best[0]) best = [edges[i - 1]!, edges[i]!];
  return best;
}

/** The two settings that decide when the client gives up. */
const settingsText = (settings: Record<string, number>) =>
  Object.entries(settings)
    .filter(([name]) => name === 'maxRedirections' || name === 'retryDelayOnTryAgain')
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');

/** A step for the axis' ticks: 1, 2 or 5 × a power of ten, so that about `most` labels fit. */
function tickStep(end: number, most: number): number {
  const raw = end / Math.max(1, most);
  const power = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-9)));
  return [1, 2, 5, 10].map((f) => f * power).find((step) => step >= raw) ?? raw;
}

/** The geometry both the drawing and its reader use: the axis, and every claim drawn on it. */
export function timelineGeometry(runs: MigrationResult[], width = TIMELINE_WIDTH) {
  const w = Math.max(280, Math.round(width));
  const drawn = runs.filter((r): r is Drawn => r.worker !== undefined);
  const ends = drawn.map((r) => Math.max(r.moveMs ?? 0, ...r.worker.claims.map((c) => c.atMs)));
  // the axis starts at the move's first command: 0 on the server's clock
  // each mode on an axis of its own, from 0 to its own end: a move of 8 s beside one of 0.2 s leaves
  // neither unreadable; the figures in words compare them
  const x = (lane: number, atMs: number) =>
    LABELS + (Math.max(0, atMs) / Math.max(1, ends[lane]!)) * (w - RIGHT_GAP - LABELS);
  const title = titleHeight(w);
  // a row for each kind of reply the lane has (served always): no empty row to read
  const kinds = drawn.map((r) =>
    KINDS.filter((kind) => kind === 'served' || r.worker.claims.some((c) => replyKind(c.reply) === kind)),
  );
  const heights = kinds.map((rows) => title + rows.length * ROW + 10 + AXIS);
  const tops = heights.map((_, i) => heights.slice(0, i).reduce((sum, h) => sum + h, 0));
  const top = (i: number) => tops[i]!;
  const marks: TimelineMark[] = drawn.flatMap((r, lane) =>
    r.worker.claims
      .filter((c) => c.atMs >= 0)
      .map((c) => {
        const kind = replyKind(c.reply);
        const name = r.nodes.find((n) => n.address === c.node)?.name ?? c.node;
        return {
          lane,
          mode: r.mode,
          atMs: c.atMs,
          node: name,
          kind,
          // an error reply's exact text, or the value as JSON: one line to read out
          reply: isErrorReply(c.reply) ? c.reply.error : JSON.stringify(c.reply),
          x: x(lane, c.atMs),
          y: top(lane) + title + kinds[lane]!.indexOf(kind) * ROW + (ROW - MARK_H) / 2,
        };
      }),
  );
  const height = heights.reduce((sum, h) => sum + h, 0);
  return { w, drawn, ends, x, top, tops, title, kinds, marks, height };
}

/** A claim read out: its mode, place, time, node and reply. */
export function markWords(mark: TimelineMark, index: number, total: number): string {
  const reply = mark.reply.length > 32 ? `${mark.reply.slice(0, 31)}…` : mark.reply;
  const mode = mark.mode === 'atomic' ? 'Atomic' : 'Key by key';
  return `${mode}, claim ${index + 1} of ${total}: at ${ms(mark.atMs)} ms, ${mark.node}, ${mark.kind} — ${reply}`;
}

/** A lane's axis at `y`: ticks from 0 ms on the server's clock to the lane's end. */
function axis(i: number, g: ReturnType<typeof timelineGeometry>, y: number): SafeHtml {
  const end = Math.max(1, g.ends[i]!);
  const step = tickStep(end, Math.max(2, Math.floor((g.w - LABELS) / 80)));
  const ticks: SafeHtml[] = [];
  for (let at = 0; at <= end + 1e-9; at += step) {
    const tx = g.x(i, at);
    ticks.push(
      markup`<line class="xp-axis-line" x1="${tx}" x2="${tx}" y1="${y}" y2="${y + 5}" /><text class="xp-axis-label" x="${tx}" y="${y + 18}" text-anchor="${at === 0 ? 'start' : tx + 32 > g.w ? 'end' : 'middle'}">${ms(at)}${at === 0 ? ' ms' : ''}</text>`,
    );
  }
  return markup`<line class="xp-axis-line" x1="${LABELS}" x2="${g.w - RIGHT_GAP}" y1="${y}" y2="${y}" />${ticks}`;
}

function lane(r: Drawn, i: number, g: ReturnType<typeof timelineGeometry>): SafeHtml {
  const y0 = g.top(i);
  const rows = g.kinds[i]!.map(
    (kind, k) =>
      markup`<text class="xp-row-name" x="${LABELS - 8}" y="${y0 + g.title + k * ROW + ROW / 2 + 4}" text-anchor="end">${kind}</text><line class="xp-row-line" x1="${LABELS}" x2="${g.w - RIGHT_GAP}" y1="${y0 + g.title + k * ROW + ROW / 2}" y2="${y0 + g.title + k * ROW + ROW / 2}" />`,
  );
  const mine = g.marks.filter((m) => m.lane === i);
  const paths = g.kinds[i]!.map((kind) => {
    const d = mine
      .filter((m) => m.kind === kind)
      .map((m) => `M${(m.x - MARK_W / 2).toFixed(1)} ${m.y}h${MARK_W}v${MARK_H}h-${MARK_W}z`)
      .join('');
    return d && markup`<path class="xp-claims xp-kind-${kind}" d="${d}" />`;
  });
  const [a, b] = longestGap(r.worker, g.ends[i]!);
  const said = `${r.jobCount !== undefined ? `${r.jobCount.toLocaleString('en')} jobs · ` : ''}longest wait ${ms(r.worker.longestWaitMs)} ms`;
  const bottom = y0 + g.title + g.kinds[i]!.length * ROW;
  const moved =
    r.moveMs !== undefined &&
    markup`<rect class="xp-move-span" x="${g.x(i, 0)}" y="${y0 + g.title}" width="${Math.max(1, g.x(i, r.moveMs) - g.x(i, 0))}" height="${g.kinds[i]!.length * ROW}" />`;
  return markup`<g data-lane="${r.mode}">${moved}<text class="xp-lane-name" x="0" y="${y0 + 14}">${modeTitle(r.mode)}${g.title < 36 ? markup`<tspan class="xp-lane-said"> · ${said}</tspan>` : ''}</text>${g.title >= 36 && markup`<text class="xp-lane-said" x="0" y="${y0 + 30}">${said}</text>`}${rows}${paths}<path class="xp-wait" d="M${g.x(i, a)} ${bottom + 6}v-5H${g.x(i, b)}v5" />${axis(i, g, bottom + 10)}</g>`;
}

/** How the lane reads in words, under the drawing. */
function laneWords(r: MigrationResult): SafeHtml {
  const w = r.worker;
  if (!w)
    return markup`<li data-worker="${r.mode}"><b>${modeTitle(r.mode)}</b>: this answer has no worker timeline (the server did not send one).</li>`;
  const counts = KINDS.map((kind) => ({
    kind,
    n: w.claims.filter((c) => replyKind(c.reply) === kind).length,
  })).filter((c) => c.n > 0);
  const before = w.claims.filter((c) => c.atMs < 0).length;
  return markup`<li data-worker="${r.mode}"><b>${modeTitle(r.mode)}</b>${r.jobCount !== undefined && `, ${r.jobCount.toLocaleString('en')} jobs`}${r.moveMs !== undefined && ` moved in ${ms(r.moveMs)} ms`}: ${w.claims.length} claim${w.claims.length === 1 ? '' : 's'} — ${counts.map((c, i) => markup`${i > 0 && ', '}${kindBadge(c.kind)} ${c.n}`)}${before > 0 && ` (${before} before 0 ms, not drawn)`}; longest wait without a served claim <b data-longest-wait>${ms(w.longestWaitMs)} ms</b>; ${w.gaveUp ? markup`<b data-gave-up="true">the client gave up</b>` : markup`<span data-gave-up="false">the client never gave up</span>`} (iovalkey <code>Cluster</code>, ${settingsText(w.settings)}).</li>`;
}

/** Both modes' workers on one axis, drawn `width` wide; `runs` holds each mode's last answer. */
export function workerTimelines(runs: MigrationResult[], width = TIMELINE_WIDTH): SafeHtml | '' {
  if (runs.length === 0) return '';
  const g = timelineGeometry(runs, width);
  const name = `The worker's claims over time, ${g.drawn.map((r) => `${modeTitle(r.mode)}: ${r.worker.claims.length} claims, longest wait ${ms(r.worker.longestWaitMs)} ms`).join('; ')}`;
  const drawing =
    g.drawn.length > 0 &&
    markup`<svg class="xp-timeline-svg" viewBox="0 0 ${g.w} ${g.height}" width="${g.w}" height="${g.height}" role="img" aria-label="${name}" data-timeline-width="${g.w}">${g.drawn.map((r, i) => lane(r, i, g))}<g class="xp-timeline-cursor" data-timeline-cursor visibility="hidden"><rect width="${MARK_W + 6}" height="${MARK_H + 6}" rx="2" /></g></svg>`;
  const first = g.marks[0];
  const firstLane = g.marks.filter((m) => m.lane === 0).length;
  return markup`<figure class="xp-timeline-figure" data-worker-timeline>
  ${drawing && markup`<figcaption class="xp-note">From the move’s first command (0 ms): a mark per claim, on its reply’s row; shaded, the move; bracketed, the longest wait. Read one: point, tap, or arrow keys below.</figcaption>`}
  ${drawing}
  ${
    drawing &&
    first &&
    markup`<p class="xp-timeline-read" role="slider" tabindex="0" aria-label="The worker's claims, one at a time (Left and Right: the previous and next claim; Up and Down: the other mode)" aria-valuemin="1" aria-valuemax="${g.marks.length}" aria-valuenow="1" aria-valuetext="${markWords(first, 0, firstLane)}" data-timeline-read>${markWords(first, 0, firstLane)}</p>`
  }
  <ul class="xp-timeline-words">${runs.map(laneWords)}</ul>
</figure>`;
}
