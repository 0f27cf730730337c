// The inline definitions' one piece of behaviour CSS cannot give: a tap opens the definition in place
// instead of following the link (a second tap on the same word follows it, to the glossary), and Escape
// closes an open definition (WCAG 1.4.13). Hover and keyboard focus open it with CSS alone.

let touched = false;
addEventListener('pointerdown', (event) => {
  touched = event.pointerType === 'touch' || event.pointerType === 'pen';
  for (const open of document.querySelectorAll('.term[data-open]'))
    if (!open.contains(event.target as Node)) delete (open as HTMLElement).dataset.open;
});
addEventListener('click', (event) => {
  const target = event.target as Element;
  const term = target.closest?.('[data-term]') as HTMLElement | null | undefined;
  if (!term) return;
  // the open definition is inside the link: a click on it reads it, and never follows the link
  if (target.closest('.term-def')) {
    event.preventDefault();
    return;
  }
  if (!touched || term.dataset.open !== undefined) return;
  event.preventDefault();
  term.dataset.open = '';
  delete term.dataset.dismissed;
});
addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return;
  for (const open of document.querySelectorAll<HTMLElement>('.term:is(:hover, :focus-within, [data-open])')) {
    delete open.dataset.open;
    open.dataset.dismissed = '';
  }
});
addEventListener('pointerout', (event) => {
  const term = (event.target as Element).closest?.('.term') as HTMLElement | null;
  if (term && !term.contains(event.relatedTarget as Node | null)) delete term.dataset.dismissed;
});
addEventListener('focusout', (event) => {
  const term = (event.target as Element).closest?.('.term') as HTMLElement | null;
  if (term) delete term.dataset.dismissed;
});
