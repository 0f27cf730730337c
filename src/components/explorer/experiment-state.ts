// Every experiment's inputs in the link: each named field of its form, written to the query string as
// `<experiment>.<field>` when the reader runs it or changes a field, restored on load (so a reload keeps
// them and a link reproduces them), and a Reset that brings back the defaults. Lists of fields (a call's
// keys, a sequence's steps) are kept whole, one line per field.

import { clearState, readState, writeState } from './url-state.ts';

type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

function fields(form: HTMLFormElement): Field[] {
  return [...form.elements].filter(
    (el): el is Field =>
      (el instanceof HTMLInputElement ||
        el instanceof HTMLSelectElement ||
        el instanceof HTMLTextAreaElement) &&
      el.name !== '' &&
      !(el instanceof HTMLInputElement && ['button', 'submit', 'radio', 'checkbox'].includes(el.type)),
  );
}

function snapshot(form: HTMLFormElement): Record<string, string> {
  const state: Record<string, string[]> = {};
  for (const field of fields(form)) (state[field.name] ??= []).push(field.value);
  return Object.fromEntries(Object.entries(state).map(([name, values]) => [name, values.join('\n')]));
}

function restore(section: HTMLElement, form: HTMLFormElement, state: Record<string, string>): void {
  const byName = () => Object.groupBy(fields(form), (field) => field.name);
  // Single fields first: changing one may rebuild the lists (the layout check's keys follow its verb).
  for (const [name, group] of Object.entries(byName())) {
    if (group!.length !== 1 || state[name] === undefined || state[name].includes('\n')) continue;
    const field = group![0]!;
    if (field.value === state[name]) continue;
    field.value = state[name];
    field.dispatchEvent(
      new Event(field instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }),
    );
  }
  for (const [name, value] of Object.entries(state)) {
    const values = value.split('\n');
    // A list the reader can grow or shrink (the steps): add or remove fields to match.
    for (let guard = 0; guard < 32; guard += 1) {
      const count = byName()[name]?.length ?? 0;
      const add = section.querySelector<HTMLButtonElement>('[data-add]');
      const remove = [...section.querySelectorAll<HTMLButtonElement>('[data-remove]')].at(-1);
      if (count < values.length && add) add.click();
      else if (count > values.length && remove) remove.click();
      else break;
    }
    const group = byName()[name] ?? [];
    if (group.length !== values.length) continue;
    group.forEach((field, i) => (field.value = values[i]!));
  }
}

export function keepState(section: HTMLElement): void {
  const name = section.dataset.experiment!;
  const form = section.querySelector<HTMLFormElement>('[data-form]');
  if (!form) return;
  const defaults = snapshot(form);
  const saved = readState(name);
  if (saved) restore(section, form, saved);
  const save = () => writeState(name, snapshot(form), defaults);
  form.addEventListener('submit', save);
  form.addEventListener('change', save);
  // The button is in the markup, so the page does not move when the island wires it.
  section.querySelector('[data-reset-state]')?.addEventListener('click', () => {
    restore(section, form, defaults);
    clearState(name);
  });
}
