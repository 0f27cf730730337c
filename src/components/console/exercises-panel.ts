// <emq-exercises>: sends each answer through the console and shows the server's verdict. A miss shows
// the exercise's hint (its own element, made at the first miss, never the answer); the second miss shows "Show me". Solved
// exercises are kept in this browser (progress-store.ts) and said in words, never by colour alone.

import { refusalOf } from '../../../server/contract/catalogue/problem.ts';
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
      const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
      // the verdict's line, a status a screen reader hears: made now, empty (its margins fold into
      // the ones around it, so it moves nothing), before the Check button below is enabled
      const verdict = document.createElement('p');
      verdict.className = 'ex-verdict';
      verdict.setAttribute('role', 'status');
      verdict.dataset.verdict = '';
      button.after(verdict);
      // made when first needed (Exercises.astro): a page of exercises nobody misses holds none of them
      let hint: HTMLElement | null = null;
      let showMe: HTMLButtonElement | null = null;
      let shown: HTMLElement | null = null;
      let misses = 0;
      button.disabled = false;
      const showAnswer = () => {
        // the answer's paragraphs, from the no-JS details (written once in the page, in a <noscript>
        // whose content a browser running scripts keeps as text: the page's own markup, parsed inert)
        const answer = item.querySelector('[data-answer]')!;
        const written = new DOMParser().parseFromString(answer.textContent ?? '', 'text/html');
        shown = document.createElement('div');
        shown.className = 'ex-shown';
        shown.dataset.shown = '';
        shown.append(...written.querySelectorAll('details > p'));
        answer.before(shown);
        showMe?.remove();
        shown.tabIndex = -1;
        shown.focus();
      };
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
          const payload = (await response.json()) as { result?: ConsoleAnswer };
          if (!payload.result) {
            const { detail } = refusalOf(payload, response.status);
            this.#mark(item, verdict, false, `Not checked: ${detail}`);
            return;
          }
          const { ok, why } = exercise.check(payload.result, answer);
          this.#mark(item, verdict, ok, why);
          // A miss teaches: the hint at once, and after the second the answer is one click away.
          if (!ok && !hint) {
            hint = document.createElement('p');
            hint.className = 'ex-hint';
            hint.dataset.hint = '';
            show(hint, markup`<b>Hint:</b> ${item.dataset.hintText}`);
            verdict.after(hint);
          }
          if (hint) hint.hidden = ok;
          if (ok) remember(exercise.id);
          else if ((misses += 1) >= 2 && !shown && !showMe) {
            showMe = document.createElement('button');
            showMe.type = 'button';
            showMe.dataset.show = '';
            showMe.textContent = 'Show me';
            showMe.addEventListener('click', showAnswer);
            button.after(showMe);
          }
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
