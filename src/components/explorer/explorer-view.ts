// The module page's explorer views and the part picker's parts: one state, kept in the hash #part-<id>.
// Each view's radio says its part (data-part, from the one table: ExplorerBody.astro). Shared by the
// fallback's script, which shows the hash's part from the first paint on, and explorer.ts, which switches
// views once the island has arrived.

/** The view that shows `part`, if the explorer has one. */
export const viewOfPart = (root: HTMLElement, part: string): string | undefined =>
  [...root.querySelectorAll<HTMLInputElement>('input[name="xp-view"]')].find((r) => r.dataset.part === part)
    ?.value;

export function showView(root: HTMLElement, view: string): void {
  for (const panel of root.querySelectorAll<HTMLElement>('[data-view]')) {
    panel.hidden = panel.dataset.view !== view;
    // a view not shown yet is a template in the page (ExplorerBody.astro): made real when first shown
    const waiting = panel.hidden ? null : panel.querySelector<HTMLTemplateElement>(':scope > template');
    waiting?.replaceWith(waiting.content);
  }
  const radio = root.querySelector<HTMLInputElement>(`input[name="xp-view"][value="${view}"]`);
  if (radio) radio.checked = true;
}

/** Shows the part the URL's hash names, when it names one of `root`'s views. */
export function showHashPart(root: HTMLElement): void {
  const view = viewOfPart(root, location.hash.replace(/^#part-/, ''));
  if (view) showView(root, view);
}
