// The island's script: defines <emq-explorer>, which wires each experiment of an explorer once the
// island has arrived (the fallback before it is inert), switches the module page's views; and lets the
// part picker's links open them.
import { ExplorerApi } from './explorer-api.ts';
import { keepState } from './experiment-state.ts';
import { wireKeys } from './keys-experiment.ts';
import { wireLayout } from './layout-experiment.ts';
import { wireReserve } from './reserve-experiment.ts';
import { wireRoute } from './route-experiment.ts';
import { wireSlot } from './slot-experiment.ts';
import { wireTwoExecutors } from './two-executors-experiment.ts';

const WIRES: Record<string, (section: HTMLElement, api: ExplorerApi) => void> = {
  keys: wireKeys,
  slot: wireSlot,
  layout: wireLayout,
  reserve: wireReserve,
  route: wireRoute,
  'two-executors': wireTwoExecutors,
};

function showView(root: HTMLElement, view: string) {
  for (const panel of root.querySelectorAll<HTMLElement>('[data-view]'))
    panel.hidden = panel.dataset.view !== view;
  const radio = root.querySelector<HTMLInputElement>(`input[name="xp-view"][value="${view}"]`);
  if (radio) radio.checked = true;
}

/**
 * <emq-explorer>: one explorer's root. It wires its experiments when it is connected — the fallback
 * (data-sandbox="loading") stays inert, and the server island's HTML, which replaces it after the page,
 * upgrades by itself on insertion — and once only, whatever moves it later.
 */
class ExplorerElement extends HTMLElement {
  #wired = false;

  connectedCallback() {
    if (this.#wired || this.dataset.sandbox === 'loading') return;
    this.#wired = true;
    const api = new ExplorerApi(this);
    for (const section of this.querySelectorAll<HTMLElement>('[data-experiment]')) {
      WIRES[section.dataset.experiment!]?.(section, api);
      keepState(section);
    }
    for (const radio of this.querySelectorAll<HTMLInputElement>('input[name="xp-view"]')) {
      radio.addEventListener('change', () => showView(this, radio.value));
    }
  }
}

customElements.define('emq-explorer', ExplorerElement);

// The island renders within a couple of seconds even when the sandbox is down; a fallback still waiting
// long after that means the island's own request failed, so say so instead of "Connecting…" forever.
const ISLAND_PATIENCE_MS = 12_000;
setTimeout(() => {
  for (const root of document.querySelectorAll<HTMLElement>('[data-explorer][data-sandbox="loading"]')) {
    const text = root.querySelector<HTMLElement>('[data-status-text]');
    if (text)
      text.textContent =
        'The live explorer did not load. The keys and slots above are computed in your browser; reload the page to try the sandbox again.';
    root.dataset.sandbox = 'unreachable';
  }
}, ISLAND_PATIENCE_MS);

// A part picker link such as <a href="#explorer-module" data-explorer-open="slot"> opens that view.
document.addEventListener('click', (event) => {
  const link = (event.target as Element).closest<HTMLAnchorElement>('[data-explorer-open]');
  const root = document.querySelector<HTMLElement>(
    'emq-explorer[data-explorer="module"]:defined:not([data-sandbox="loading"])',
  );
  if (!link || !root) return;
  showView(root, link.dataset.explorerOpen!);
  const panel = root.querySelector<HTMLElement>(`[data-view="${link.dataset.explorerOpen}"]`);
  requestAnimationFrame(() =>
    panel?.querySelector<HTMLElement>('input:not([type="radio"]), button')?.focus(),
  );
});
