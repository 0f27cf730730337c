// Upgrades the part picker's links to ARIA tabs: click, arrow keys, Home/End, and the URL hash. The
// module page's explorer shows the same parts: the hash (#part-<id>) is the one state both follow, and
// each tells the other through an `emq:part` event on the document (part-event.ts).

import { announcePart, followPart } from './part-event.ts';

const announce = (part: string) => announcePart(part, 'picker');

for (const root of document.querySelectorAll<HTMLElement>('[data-part-picker]')) {
  const list = root.querySelector<HTMLElement>('.part-tabs')!;
  const tabs = [...root.querySelectorAll<HTMLAnchorElement>('[data-part-tab]')];
  const panels = tabs.map((t) =>
    root.querySelector<HTMLElement>(`[data-part-panel="${t.dataset.partTab}"]`)!,
  );

  list.setAttribute('role', 'tablist');
  for (const li of list.children) li.setAttribute('role', 'presentation');
  tabs.forEach((tab, i) => {
    const panel = panels[i]!;
    tab.setAttribute('role', 'tab');
    tab.setAttribute('aria-controls', panel.id);
    panel.setAttribute('role', 'tabpanel');
    panel.setAttribute('aria-labelledby', tab.id);
    panel.tabIndex = 0;
  });

  const select = (index: number, focus: boolean) => {
    tabs.forEach((tab, i) => {
      const on = i === index;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
      panels[i]!.hidden = !on;
    });
    if (focus) tabs[index]!.focus();
  };

  const fromHash = () => panels.findIndex((p) => `#${p.id}` === location.hash);
  select(Math.max(0, fromHash()), false);
  root.classList.add('is-enhanced');

  tabs.forEach((tab, i) => {
    tab.addEventListener('click', (event) => {
      event.preventDefault();
      select(i, false);
      history.replaceState(null, '', tab.hash);
      announce(tab.dataset.partTab!);
    });
  });

  list.addEventListener('keydown', (event) => {
    const current = tabs.findIndex((t) => t.getAttribute('aria-selected') === 'true');
    const last = tabs.length - 1;
    const to =
      event.key === 'ArrowRight' || event.key === 'ArrowDown'
        ? current === last
          ? 0
          : current + 1
        : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
          ? current === 0
            ? last
            : current - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : -1;
    if (to < 0) return;
    event.preventDefault();
    select(to, true);
    history.replaceState(null, '', tabs[to]!.hash);
    announce(tabs[to]!.dataset.partTab!);
  });

  addEventListener('hashchange', () => {
    const i = fromHash();
    if (i >= 0) {
      select(i, false);
      announce(tabs[i]!.dataset.partTab!);
    }
  });

  // The explorer's own picker changed the part: follow it (it has already written the hash).
  followPart('picker', (part) => {
    const i = tabs.findIndex((t) => t.dataset.partTab === part);
    if (i >= 0) select(i, false);
  });
}
