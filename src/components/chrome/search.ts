// Client search: fetch the build-time index once, then rank sections by how many query words they hold.
import { snippet } from './search-snippet.ts';

interface Entry {
  page: string;
  heading: string;
  url: string;
  text: string;
}

let index: Promise<Entry[]> | undefined;
const load = () => (index ??= fetch('/search-index.json').then((r) => r.json() as Promise<Entry[]>));

/**
 * The results box under the field: a status line, which a screen reader hears as it changes (made here
 * on the field's first focus, before anything is typed, so it is in place when it first speaks), and
 * the list of hits.
 */
function resultsBox(root: HTMLElement, input: HTMLInputElement) {
  const box = document.createElement('div');
  box.className = 'search-results';
  box.hidden = true;
  const status = document.createElement('p');
  status.id = 'search-status';
  status.className = 'search-status';
  status.setAttribute('aria-live', 'polite');
  const list = document.createElement('ul');
  box.append(status, list);
  root.append(box);
  input.setAttribute('aria-describedby', status.id);
  return { box, status, list };
}

for (const root of document.querySelectorAll<HTMLElement>('[data-search]')) {
  const input = root.querySelector('input')!;
  let results: ReturnType<typeof resultsBox> | undefined;
  const made = () => (results ??= resultsBox(root, input));

  const run = async () => {
    const { box, status, list } = made();
    const words = input.value
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w.length > 1);
    list.replaceChildren();
    if (!words.length) {
      box.hidden = true;
      status.textContent = '';
      return;
    }
    const entries = await load();
    const hits = entries
      .map((e) => {
        const hay = (e.heading + ' ' + e.text).toLowerCase();
        const score = words.reduce(
          (s, w) => s + (hay.includes(w) ? 1 + (e.heading.toLowerCase().includes(w) ? 1 : 0) : -100),
          0,
        );
        return { e, score };
      })
      .filter((h) => h.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, 8);
    for (const { e } of hits) {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = e.url;
      const title = document.createElement('strong');
      title.textContent = e.heading ? `${e.page} › ${e.heading}` : e.page;
      const text = document.createElement('span');
      text.textContent = snippet(e.text, words[0]!);
      a.append(title, text);
      li.append(a);
      list.append(li);
    }
    status.textContent = hits.length ? `${hits.length} result${hits.length > 1 ? 's' : ''}` : 'No results';
    box.hidden = false;
  };

  // the results of the text typed last, once ranked: Enter waits for them
  let ranked: Promise<void> = Promise.resolve();
  input.addEventListener('input', () => (ranked = run()));
  input.addEventListener('focus', () => {
    made();
    void load();
  });
  const links = () => (results && !results.box.hidden ? [...results.list.querySelectorAll('a')] : []);
  root.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      input.value = '';
      ranked = run();
      input.focus();
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      // the field and the results are one column: the arrows walk it, the field above the first result
      const all = links();
      if (all.length === 0) return;
      event.preventDefault();
      const at = all.indexOf(document.activeElement as HTMLAnchorElement);
      const to = event.key === 'ArrowDown' ? Math.min(at + 1, all.length - 1) : at - 1;
      (to < 0 ? input : all[to]!).focus();
    } else if (event.key === 'Enter' && event.target === input) {
      // Enter in the field opens the first result (on a result, Enter follows that link itself)
      event.preventDefault();
      void ranked.then(() => links()[0]?.click());
    }
  });
}
