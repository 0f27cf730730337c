// <emq-exercises>: sends each answer through the console and shows the server's verdict; solved
// exercises are remembered in localStorage and said in words (never by colour alone).

import { markup, show } from '../../lib/html.ts';
import { exercisesFor, type ConsoleAnswer } from './exercises.ts';

const STORE = 'emq-exercises-solved';

function solved(): Set<string> {
  try {
    return new Set(JSON.parse(localStorage.getItem(STORE) ?? '[]') as string[]);
  } catch {
    return new Set();
  }
}

function remember(id: string): void {
  const done = solved();
  done.add(id);
  try {
    localStorage.setItem(STORE, JSON.stringify([...done]));
  } catch {
    // storage off: the verdict still shows, only the progress is not kept
  }
}

export class EmqExercises extends HTMLElement {
  connectedCallback(): void {
    const exercises = exercisesFor(this.dataset.route ?? '');
    for (const exercise of exercises) {
      const item = this.querySelector<HTMLElement>(`[data-exercise="${exercise.id}"]`);
      if (!item) continue;
      const form = item.querySelector('form')!;
      const verdict = item.querySelector<HTMLElement>('[data-verdict]')!;
      const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
      const showMe = form.querySelector<HTMLButtonElement>('[data-show]')!;
      const shown = item.querySelector<HTMLElement>('[data-shown]')!;
      let misses = 0;
      button.disabled = false;
      showMe.addEventListener('click', () => {
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
          if (ok) remember(exercise.id);
          else misses += 1;
          // A miss teaches: a hint at once, and after two the answer is one click away.
          this.#mark(item, verdict, ok, ok ? why : `${why} Hint: ${item.dataset.hint}`);
          if (!ok && misses >= 2 && shown.hidden) showMe.hidden = false;
        } catch {
          this.#mark(item, verdict, false, 'The site did not answer; try again.');
        } finally {
          button.disabled = false;
          this.#progress(exercises.length);
        }
      });
    }
    this.#progress(exercises.length);
  }

  #mark(item: HTMLElement, verdict: HTMLElement, ok: boolean, why: string): void {
    item.dataset.state = ok ? 'solved' : 'wrong';
    show(verdict, markup`<b>${ok ? 'Right.' : 'Not yet.'}</b> ${why}`);
  }

  #progress(total: number): void {
    const done = exercisesFor(this.dataset.route ?? '').filter((e) => solved().has(e.id)).length;
    this.querySelector('[data-progress]')!.textContent = `${done} of ${total} solved in this browser.`;
  }
}

customElements.define('emq-exercises', EmqExercises);
