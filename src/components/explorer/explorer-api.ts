// The island's one way to the sandbox: POST an experiment, and keep the status line honest. A 503
// SANDBOX_DOWN (or no answer at all) marks the sandbox down and polls /api/sandbox until it answers
// again; every other refusal comes back as the API's own code and words (its problem details' `code` and
// `detail`). A degraded cluster is polled
// the same way, so the note beside the cluster experiments goes once the site has repaired it.

import type { BodyOf, ExperimentName, ResultOf } from '../../../server/contract/experiment-table.ts';
import { refusalOf } from '../../../server/contract/catalogue/problem.ts';
import { keepState } from './experiment-state.ts';
import { DOWN_TEXT, upText } from './status-text.ts';

export type Outcome<T> = { ok: true; result: T } | { ok: false; code: string; message: string };

const POLL_MS = 2000;

export class ExplorerApi {
  readonly #root: HTMLElement;
  readonly #status: HTMLElement;
  #polling: number | undefined;

  constructor(root: HTMLElement) {
    this.#root = root;
    this.#status = root.querySelector<HTMLElement>('[data-status-text]')!;
    if (root.dataset.sandbox === 'down') this.#down();
    if (root.dataset.sandbox === 'degraded') this.#pollUntilUp();
  }

  /** Runs experiment `name` with `body`: both, and the result, typed by the one table's row for `name`. */
  async run<N extends ExperimentName>(name: N, body: BodyOf<N>): Promise<Outcome<ResultOf<N>>> {
    let response: Response;
    try {
      response = await fetch(`/api/experiments/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    } catch {
      this.#down();
      return { ok: false, code: 'SANDBOX_DOWN', message: 'the site did not answer; is the network up?' };
    }
    let payload: { result?: ResultOf<N> };
    try {
      payload = await response.json();
    } catch {
      return { ok: false, code: `HTTP ${response.status}`, message: 'the site answered without JSON' };
    }
    if (response.ok && payload.result !== undefined) {
      // a degraded cluster stays said: a standalone run served is no news about the cluster
      const state = this.#root.dataset.sandbox;
      if (state !== 'up' && state !== 'degraded') this.#up();
      return { ok: true, result: payload.result };
    }
    const { code, detail } = refusalOf(payload, response.status);
    if (code === 'SANDBOX_DOWN') this.#down();
    return { ok: false, code, message: detail };
  }

  #say(state: 'up' | 'down', text: string) {
    this.#root.dataset.sandbox = state;
    this.#status.textContent = text;
  }

  #down() {
    this.#say('down', DOWN_TEXT);
    this.#pollUntilUp();
  }

  /** One poll at a time, whether the sandbox is down or its cluster degraded; #up stops it. */
  #pollUntilUp() {
    this.#polling ??= window.setInterval(() => void this.#poll(), POLL_MS);
  }

  #up(native?: boolean) {
    window.clearInterval(this.#polling);
    this.#polling = undefined;
    for (const note of this.#root.querySelectorAll('[data-cluster-degraded]')) note.remove();
    this.#say('up', upText(native));
    this.#root.dispatchEvent(new CustomEvent('explorer:up'));
  }

  async #poll() {
    try {
      const status = (await (await fetch('/api/sandbox')).json()) as { sandbox: string; native: boolean };
      if (status.sandbox === 'up') this.#up(status.native);
    } catch {
      // still down; the next poll asks again
    }
  }
}

/** Disables a form's submit button while its run is on the wire. */
export async function busy<T>(form: HTMLFormElement, work: () => Promise<T>): Promise<T> {
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  form.setAttribute('aria-busy', 'true');
  if (button) button.disabled = true;
  try {
    return await work();
  } finally {
    form.removeAttribute('aria-busy');
    if (button) button.disabled = false;
  }
}

/** One API per explorer, shared by its experiments (one status line, one poll while it is down). */
const apis = new WeakMap<HTMLElement, ExplorerApi>();

function apiFor(root: HTMLElement): ExplorerApi {
  let api = apis.get(root);
  if (!api) apis.set(root, (api = new ExplorerApi(root)));
  return api;
}

/**
 * Defines an experiment's custom element, e.g. <emq-keys-experiment> around KeysExperiment.astro's
 * section: it wires its section (and keeps its inputs in the link) when connected inside a live explorer — the fallback (data-sandbox
 * "loading") stays inert; the server island's HTML upgrades by itself on insertion — and once only.
 */
export function defineExperiment(tag: string, wire: (section: HTMLElement, api: ExplorerApi) => void): void {
  customElements.define(
    tag,
    class extends HTMLElement {
      #wired = false;

      connectedCallback() {
        const root = this.closest<HTMLElement>('[data-explorer]');
        if (this.#wired || !root || root.dataset.sandbox === 'loading') return;
        this.#wired = true;
        const section = this.querySelector<HTMLElement>('[data-experiment]')!;
        wire(section, apiFor(root));
        keepState(section);
      }
    },
  );
}
