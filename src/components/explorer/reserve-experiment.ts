// the reserve: runs the sequence and replaces the plan with every step's commands and replies.
import { busy, defineExperiment, type ExplorerApi } from './explorer-api.ts';
import { markup, show } from '../../lib/html.ts';
import type { ReserveResult } from '../../../server/contract/experiments/reserve.ts';
import { refusalText, reserveTimeline } from './explorer-view.ts';

export function wireReserve(section: HTMLElement, api: ExplorerApi): void {
  const form = section.querySelector<HTMLFormElement>('[data-form]')!;
  const region = section.querySelector('[data-result]')!;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(form, async () => {
      const outcome = await api.run<ReserveResult>('reserve', {});
      if (!outcome.ok) return show(region, refusalText(outcome.code, outcome.message));
      const { native, steps } = outcome.result;
      const note =
        !native &&
        markup`<p class="xp-note">The native module is not loaded on this sandbox, so the native writes are left out.</p>`;
      show(region, markup`${note}${reserveTimeline(steps)}`);
    });
  });
}

defineExperiment('emq-reserve-experiment', wireReserve);
