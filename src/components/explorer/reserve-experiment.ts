// the reserve: runs the sequence and replaces the plan with every step's commands and replies.
import { defineExperiment, type ExperimentApi } from './explorer-api.ts';
import { markup, show } from '../../lib/html.ts';
import { refusalText } from './refusal-text.ts';
import { reserveTimeline } from './reserve-timeline.ts';

export function wireReserve(section: HTMLElement, api: ExperimentApi): void {
  const form = section.querySelector<HTMLFormElement>('[data-form]')!;
  const region = section.querySelector('[data-result]')!;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      const outcome = await api.run('reserve', {});
      if (!outcome.ok) return show(region, refusalText(outcome.code, outcome.message));
      const { native, steps } = outcome.result;
      const note =
        !native &&
        markup`<p class="xp-note">The native module is not loaded on this sandbox, so the native writes are left out.</p>`;
      show(region, markup`${note}${reserveTimeline(steps)}`);
    })();
  });
}

defineExperiment('emq-reserve-experiment', wireReserve);
