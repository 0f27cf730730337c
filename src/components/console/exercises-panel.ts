// <emq-exercises>: sends each answer through the console and shows the server's verdict. A miss shows
// the exercise's hint (its own element, never the answer); the second miss shows "Show me". Solved
// exercises are kept in this browser (progress-store.ts) and said in words, never by colour alone.

import { markup, show } from '../../lib/html.ts';
import { exercisesFor, type ConsoleAnswer } from './exercises.ts';
import { forget, onProgress, remember, solved, solvedOf } from './progress-store.ts';

/** "2 of 3 solved", the words every view of the progress uses. */
const ofSolved = (done: number, total: number) => `${done} of ${total} solved`;

export class EmqExercises extends HTMLElement {
  connectedCallback(): void {
    const exercises = exercisesFor(this.dataset.route ?? '');
    for (const exercise of exercises) {
      const item = this.querySelector<HTMLElement>(`[data-exercise="${exercise.id}"]`);
      if (!item) continue;
      const form = item.querySelector('form')!;
      const verdict = item.querySelector<HTMLElement>('[data-verdict]')!;
      const hint = item.querySelector<HTMLElement>('[data-hint]')!;
      const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
      const showMe = form.querySelector<HTMLButtonElement>('[data-show]')!;
      const shown = item.querySelector<HTMLElement>('[data-shown]')!;
      let misses = 0;
      button.disabled = false;
      showMe.addEventListener('click', () => {
        // the answer's paragraphs, from the no-JS details (written once in the page)
        shown.append(...item.querySelectorAll('[data-answer] > p'));
        shown.hidden = false;
        showMe.hidden = true;
        shown.tabIndex = -1;
        shown.focus();
      });
      if (solved().has(exercise.id)) this.#mark(item, verdict, true, 'Solved before, in this browser.');
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const answer = String(new FormData(form).get('answer') ?? '');
        button.disabled = true;
        verdict.textContent = 'Checking on the sandbox…';
        try {
          const response = await fetch('/api/experiments/console', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ lines: exercise.lines(answer), node: exercise.node }),
          });
          const payload = (await response.json()) as {
            result?: ConsoleAnswer;
            error?: { code: string; message: string };
          };
          if (!payload.result) {
            this.#mark(item, verdict, false, `Not checked: ${payload.error?.message ?? response.status}`);
            return;
          }
          const { ok, why } = exercise.check(payload.result, answer);
          this.#mark(item, verdict, ok, why);
          // A miss teaches: the hint at once, and after the second the answer is one click away.
          hint.hidden = ok;
          if (ok) remember(exercise.id);
          else if ((misses += 1) >= 2 && shown.hidden) showMe.hidden = false;
        } catch {
          this.#mark(item, verdict, false, 'The site did not answer; try again.');
        } finally {
          button.disabled = false;
        }
      });
    }
    this.querySelector('[data-forget]')?.addEventListener('click', () => forget());
    onProgress(() => this.#progress());
  }

  #mark(item: HTMLElement, verdict: HTMLElement, ok: boolean, why: string): void {
    item.dataset.state = ok ? 'solved' : 'wrong';
    show(verdict, markup`<b>${ok ? 'Right.' : 'Not yet.'}</b> ${why}`);
  }

  /** This page's count, the module summary's counts, and a reset's effect on the verdicts shown. */
  #progress(): void {
    const exercises = exercisesFor(this.dataset.route ?? '');
    const done = solved();
    for (const item of this.querySelectorAll<HTMLElement>('[data-exercise][data-state="solved"]')) {
      if (done.has(item.dataset.exercise!)) continue;
      delete item.dataset.state;
      item.querySelector('[data-verdict]')!.textContent = '';
    }
    this.querySelector('[data-progress]')!.textContent =
      `${ofSolved(solvedOf(exercises.map((e) => e.id)), exercises.length)} in this browser.`;
    for (const count of this.querySelectorAll<HTMLElement>('[data-count]')) {
      const ids = count.dataset.count!.split(' ');
      count.textContent = ofSolved(solvedOf(ids), ids.length);
    }
  }
}

customElements.define('emq-exercises', EmqExercises);
