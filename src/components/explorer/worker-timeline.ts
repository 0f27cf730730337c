// The queue's worker through each move, both modes on one time axis (the server's milliseconds since
// the move began): every claim a mark coloured and placed by its reply's kind, the longest stretch
// without a served claim bracketed, whether the client gave up and with which settings. A mode whose
// answer has no worker yet is said so, never drawn empty. Free of Node and DOM APIs.

import {
  replyKind,
  type MigrationResult,
  type ReplyKind,
  type WorkerTimeline,
} from '../../../server/contract/experiments/migration.ts';
import { markup, type SafeHtml } from '../../lib/html.ts';
import { kindBadge } from './reply-badge.ts';
import { modeTitle, ms } from './migration-stepper.ts';

const KINDS: ReplyKind[] = ['served', 'retry', 'redirected', 'refused'];
const W = 360;
const LEFT = 4;
const RIGHT = 356;
const LANE = 44;

/** Where the worker waited longest: the widest gap between served claims (or the move's ends). */
function longestGap(worker: WorkerTimeline, end: number): [number, number] {
  const served = worker.claims.filter((c) => replyKind(c.reply) === 'served').map((c) => c.atMs);
  const edges = [0, ...served, end].sort((a, b) => a - b);
  let best: [number, number] = [0, 0];
  for (let i = 1; i < edges.length; i += 1)
    if (edges[i]! - edges[i - 1]! > best[1] - best[0]) best = [edges[i - 1]!, edges[i]!];
  return best;
}

const settingsText = (settings: Record<string, number>) =>
  Object.entries(settings)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');

function lane(
  r: MigrationResult & { worker: WorkerTimeline },
  top: number,
  x: (ms: number) => number,
  end: number,
) {
  const paths = KINDS.map((kind) => {
    const d = r.worker.claims
      .filter((c) => replyKind(c.reply) === kind)
      .map((c) => `M${x(c.atMs).toFixed(1)} ${top + KIND_ROW[kind]}v8`)
      .join('');
    return d && markup`<path class="xp-claims xp-kind-${kind}" d="${d}" />`;
  });
  const [a, b] = longestGap(r.worker, end);
  const moved =
    r.moveMs !== undefined &&
    markup`<rect class="xp-move-span" x="${x(0)}" y="${top + 2}" width="${Math.max(1, x(r.moveMs) - x(0))}" height="34" />`;
  return markup`<g data-lane="${r.mode}">${moved}<text class="xp-lane-name" x="${LEFT}" y="${top - 3}">${modeTitle(r.mode)}</text>${paths}<path class="xp-wait" d="M${x(a)} ${top + 40}v-4H${x(b)}v4" /></g>`;
}

const KIND_ROW: Record<ReplyKind, number> = { served: 4, retry: 13, redirected: 22, refused: 31 };

/** How the lane reads in words, under the drawing. */
function laneWords(r: MigrationResult): SafeHtml {
  const w = r.worker;
  if (!w)
    return markup`<li data-worker="${r.mode}"><b>${modeTitle(r.mode)}</b>: this answer has no worker timeline (the server did not send one).</li>`;
  const counts = KINDS.map((kind) => ({
    kind,
    n: w.claims.filter((c) => replyKind(c.reply) === kind).length,
  })).filter((c) => c.n > 0);
  return markup`<li data-worker="${r.mode}"><b>${modeTitle(r.mode)}</b>${r.jobCount !== undefined && `, ${r.jobCount.toLocaleString('en')} jobs`}${r.moveMs !== undefined && `, moved in ${ms(r.moveMs)} ms`}: ${w.claims.length} claim${w.claims.length === 1 ? '' : 's'} — ${counts.map((c, i) => markup`${i > 0 && ', '}${kindBadge(c.kind)} ${c.n}`)}; longest wait without a served claim <b data-longest-wait>${ms(w.longestWaitMs)} ms</b>; ${w.gaveUp ? markup`<b data-gave-up="true">the client gave up</b>` : markup`<span data-gave-up="false">the client never gave up</span>`} (iovalkey <code>Cluster</code>, ${settingsText(w.settings)}).</li>`;
}

/** Both modes' workers on one axis; `runs` holds each mode's last answer. */
export function workerTimelines(runs: MigrationResult[]): SafeHtml | '' {
  if (runs.length === 0) return '';
  const drawn = runs.filter((r): r is MigrationResult & { worker: WorkerTimeline } => r.worker !== undefined);
  const ends = drawn.map((r) => Math.max(r.moveMs ?? 0, ...r.worker.claims.map((c) => c.atMs)));
  const end = Math.max(1, ...ends);
  const start = Math.min(0, ...drawn.flatMap((r) => r.worker.claims.map((c) => c.atMs)));
  const x = (ms: number) => LEFT + ((ms - start) / (end - start)) * (RIGHT - LEFT);
  const height = 14 + drawn.length * (LANE + 14) + 14;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const msAt = start + f * (end - start);
    return markup`<text class="xp-axis-label" x="${x(msAt)}" y="${height - 3}" text-anchor="${f === 0 ? 'start' : f === 1 ? 'end' : 'middle'}">${ms(msAt)} ms</text>`;
  });
  const drawing =
    drawn.length > 0 &&
    markup`<svg class="xp-timeline-svg" viewBox="0 0 ${W} ${height}" role="img" aria-label="The worker's claims over time, ${drawn.map((r) => `${modeTitle(r.mode)}: ${r.worker.claims.length} claims, longest wait ${ms(r.worker.longestWaitMs)} ms`).join('; ')}">${drawn.map((r, i) => lane(r, 18 + i * (LANE + 14), x, ends[i]!))}<line class="xp-axis-line" x1="${LEFT}" x2="${RIGHT}" y1="${height - 14}" y2="${height - 14}" />${ticks}</svg>`;
  return markup`<figure class="xp-timeline-figure" data-worker-timeline>
  ${drawing && markup`<figcaption class="xp-note">A worker claiming in a loop through each move: a mark per claim, one row per kind (served, retry, redirected, refused); shaded, the move; the bracket, the longest wait.</figcaption>`}
  ${drawing}
  <ul class="xp-timeline-words">${runs.map(laneWords)}</ul>
</figure>`;
}
