// The island's script: defines <emq-explorer> and, through their modules, each experiment's element;
// the explorer switches the module page's views, and the part picker's links open them.
// Each experiment defines its own element (<emq-keys-experiment>…) in its script, <name>-experiment.ts
// (experiment-files.ts); every one is loaded here, found by that name, which keeps the explorer one script.
import.meta.glob('./*-experiment.ts', { eager: true });
import './byte-count.ts';
import { announcePart, followPart } from '../blocks/part-event.ts';
import { showHashPart, showView, viewOfPart } from './explorer-view.ts';

/**
 * <emq-explorer>: one explorer's root. Once the island has arrived (the fallback, data-sandbox
 * "loading", stays inert) it switches the module page's views; its experiments wire themselves.
 */
class ExplorerElement extends HTMLElement {
  #wired = false;

  connectedCallback() {
    if (this.#wired || this.dataset.sandbox === 'loading') return;
    this.#wired = true;
    const radios = this.querySelectorAll<HTMLInputElement>('input[name="xp-view"]');
    if (radios.length === 0) return;
    for (const radio of radios) {
      radio.addEventListener('change', () => {
        showView(this, radio.value);
        history.replaceState(null, '', `#part-${radio.dataset.part}`);
        announcePart(radio.dataset.part!, 'explorer');
      });
    }
    // The part picker's choice, now (from the link) and whenever the reader picks another.
    showHashPart(this);
    followPart('explorer', (part) => {
      const view = viewOfPart(this, part);
      if (view) showView(this, view);
    });
  }
}

customElements.define('emq-explorer', ExplorerElement);

// The island renders within a couple of seconds even when the sandbox is down; a fallback still waiting
// long after that means the island's own request failed, so say so instead of "Connecting…" forever.
// Counted from the page's start: this module loads only when the reader nears the explorer.
const ISLAND_PATIENCE_MS = 12_000;
setTimeout(
  () => {
    for (const root of document.querySelectorAll<HTMLElement>('[data-explorer][data-sandbox="loading"]')) {
      const text = root.querySelector<HTMLElement>('[data-status-text]');
      if (text)
        text.textContent =
          'The live explorer did not load. The keys and slots above are computed in your browser; reload the page to try the sandbox again.';
      root.dataset.sandbox = 'unreachable';
    }
  },
  Math.max(0, ISLAND_PATIENCE_MS - performance.now()),
);

/**
 * A part picker link such as <a href="#explorer-module" data-explorer-open="slot"> opens that view. Called
 * by the page's loader (ExplorerFallback.astro) on the link's click, once this module has loaded.
 */
export function openLinkedView(link: HTMLAnchorElement): void {
  const root = document.querySelector<HTMLElement>(
    'emq-explorer[data-explorer="module"]:defined:not([data-sandbox="loading"])',
  );
  if (!root) return;
  showView(root, link.dataset.explorerOpen!);
  const panel = root.querySelector<HTMLElement>(`[data-view="${link.dataset.explorerOpen}"]`);
  requestAnimationFrame(() =>
    panel?.querySelector<HTMLElement>('input:not([type="radio"]), button')?.focus(),
  );
}
