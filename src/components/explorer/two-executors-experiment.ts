// two executors: edits the step list (add, remove, choose) and runs it through both executors.
import { defineExperiment, type ExperimentApi } from './explorer-api.ts';
import { markup, show } from '../../lib/html.ts';
import { STEPS } from '../../../server/contract/experiments/two-executors.ts';
import { isOneOf } from '../../../server/contract/one-of.ts';
import { executorRuns } from './executor-runs.ts';
import { refusalText } from './refusal-text.ts';
import { queueRefusal, queueRefusedView } from './queue-refusal.ts';
import { readState } from './url-state.ts';

export function wireTwoExecutors(section: HTMLElement, api: ExperimentApi): void {
  const form = section.querySelector<HTMLFormElement>('[data-form]')!;
  const region = section.querySelector('[data-result]')!;
  const list = section.querySelector<HTMLOListElement>('[data-steps]')!;
  const template = section.querySelector<HTMLTemplateElement>('[data-step-template]')!;
  const add = section.querySelector<HTMLButtonElement>('[data-add]')!;
  const max = Number(section.dataset.maxSteps);

  const renumber = () => {
    const items = [...list.children];
    items.forEach((item, i) => {
      // the label's first text is "Step n " (TwoExecutorsExperiment.astro)
      item.querySelector('label')!.firstChild!.textContent = `Step ${i + 1} `;
      item
        .querySelector<HTMLButtonElement>('[data-remove]')!
        .setAttribute('aria-label', `Remove step ${i + 1}`);
    });
    add.disabled = items.length >= max;
  };
  renumber();

  // A default step's select arrives holding its own step alone (TwoExecutorsExperiment.astro): the
  // template's choices are copied in on the first focus or press, before it opens.
  const choices = template.content.querySelector('select')!.options;
  const complete = (target: EventTarget | Element | null) => {
    if (!(target instanceof HTMLSelectElement) || target.options.length === choices.length) return;
    const value = target.value;
    target.replaceChildren(...[...choices].map((option) => option.cloneNode(true)));
    target.value = value;
  };
  list.addEventListener('focusin', (event) => complete(event.target));
  list.addEventListener('pointerdown', (event) => complete(event.target));
  complete(document.activeElement);
  // a sequence restored from the link sets any step on any select (experiment-state.ts, after this)
  if (readState(section.dataset.experiment!))
    for (const select of list.querySelectorAll('select')) complete(select);

  list.addEventListener('click', (event) => {
    const remove = (event.target as Element).closest('[data-remove]');
    if (!remove || list.children.length <= 1) return;
    const item = remove.closest('li')!;
    const next = (item.nextElementSibling ?? item.previousElementSibling) as HTMLElement | null;
    item.remove();
    renumber();
    next?.querySelector('select')?.focus();
  });
  add.addEventListener('click', () => {
    if (list.children.length >= max) return;
    list.append(template.content.cloneNode(true));
    renumber();
    list.lastElementChild?.querySelector('select')?.focus();
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = {
      queue: String(data.get('queue') ?? ''),
      steps: data.getAll('step').filter((step) => isOneOf(STEPS, step)),
    };
    const refused = queueRefusal(body.queue);
    if (refused) return show(region, queueRefusedView(refused));
    void (async () => {
      const outcome = await api.run('two-executors', body);
      if (!outcome.ok) return show(region, refusalText(outcome.code, outcome.message));
      const r = outcome.result;
      if (!r.available) return show(region, markup`<p>${r.message}</p>`);
      show(region, executorRuns(r.steps, r.same));
    })();
  });
}

defineExperiment('emq-two-executors-experiment', wireTwoExecutors);
