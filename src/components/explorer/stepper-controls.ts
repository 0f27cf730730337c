// The stepper's controls: Previous and Next, the scrubber (a range input: arrow keys, Home, End), Left
// and Right anywhere in the stepper, and Play, which steps on its own once a second and a half — unless
// the reader's system asks for reduced motion, when Play is not offered and the phases change only
// when asked. Every change redraws the one phase shown and tells `onPhase` (the slot map follows it).

import type { MigrationResult } from '../../../server/contract/experiments/migration.ts';
import { show } from '../../lib/html.ts';
import { phaseFrame, when } from './migration-stepper.ts';

const PLAY_MS = 1500;

export function driveStepper(
  root: HTMLElement,
  r: MigrationResult,
  onPhase: (index: number) => void = () => {},
): void {
  const frame = root.querySelector<HTMLElement>('[data-stepper-frame]')!;
  const prev = root.querySelector<HTMLButtonElement>('[data-step="prev"]')!;
  const next = root.querySelector<HTMLButtonElement>('[data-step="next"]')!;
  const play = root.querySelector<HTMLButtonElement>('[data-step="play"]')!;
  const scrub = root.querySelector<HTMLInputElement>('[data-step="scrub"]')!;
  const said = root.querySelector<HTMLElement>('[data-stepper-said]')!;
  const last = r.phases.length - 1;
  const reduced = window.matchMedia('(prefers-reduced-motion: reduce)');
  let index = Number(scrub.value);
  let timer: number | undefined;

  const go = (to: number) => {
    index = Math.max(0, Math.min(last, to));
    scrub.value = String(index);
    scrub.setAttribute(
      'aria-valuetext',
      `phase ${index + 1} of ${r.phases.length}: ${r.phases[index]!.name}`,
    );
    prev.disabled = index === 0;
    next.disabled = index === last;
    show(frame, phaseFrame(r, index));
    const at = r.phases[index]!.atMs;
    said.textContent = `Phase ${index + 1} of ${r.phases.length}: ${r.phases[index]!.name}${at === undefined ? '' : `, ${when(at)}`}`;
    onPhase(index);
  };

  const stop = () => {
    window.clearInterval(timer);
    timer = undefined;
    play.setAttribute('aria-pressed', 'false');
    play.textContent = 'Play';
  };

  const offerPlay = () => {
    play.hidden = reduced.matches;
    if (reduced.matches) stop();
  };
  offerPlay();
  reduced.addEventListener('change', offerPlay);

  // Pressing a button that then disables itself would drop the focus to the page: keep it in the stepper.
  prev.addEventListener('click', () => {
    stop();
    go(index - 1);
    if (prev.disabled) next.focus();
  });
  next.addEventListener('click', () => {
    stop();
    go(index + 1);
    if (next.disabled) prev.focus();
  });
  scrub.addEventListener('input', () => {
    stop();
    go(Number(scrub.value));
  });
  play.addEventListener('click', () => {
    if (timer !== undefined) return stop();
    if (reduced.matches) return;
    if (index === last) go(0);
    play.setAttribute('aria-pressed', 'true');
    play.textContent = 'Pause';
    timer = window.setInterval(() => {
      go(index + 1);
      if (index === last) stop();
    }, PLAY_MS);
  });
  root.addEventListener('keydown', (event) => {
    if (event.target === scrub || !(event.key === 'ArrowLeft' || event.key === 'ArrowRight')) return;
    if ((event.target as Element).closest('svg[data-grid], input, textarea, select')) return;
    event.preventDefault();
    stop();
    go(index + (event.key === 'ArrowLeft' ? -1 : 1));
  });
}
