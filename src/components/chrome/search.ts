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

for (const root of document.querySelectorAll<HTMLElement>('[data-search]')) {
  const input = root.querySelector('input')!;
  const box = root.querySelector<HTMLElement>('[data-search-results]')!;
  const status = box.querySelector('p')!;
  const list = box.querySelector('ul')!;

  const run = async () => {
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

  input.addEventListener('input', run);
  input.addEventListener('focus', () => void load());
  root.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      input.value = '';
      void run();
      input.focus();
    }
  });
}
