// A closed <details> of the island holds its content in a template until first opened
// (DetailsContent.astro): made real on the summary's click, before the details opens, so it never opens
// empty; and on any other opening (a script's), when the toggle arrives. Loaded with the page's
// explorer loader (ExplorerFallback.astro), not with the explorer's code, which may not have arrived.

function fill(details: Element | null): void {
  const waiting = details?.querySelector<HTMLTemplateElement>(':scope > template[data-details-content]');
  waiting?.replaceWith(waiting.content);
}

document.addEventListener(
  'click',
  (event) => fill((event.target as Element).closest?.('summary')?.parentElement ?? null),
  true,
);
// toggle does not bubble: listened for on the way down
document.addEventListener(
  'toggle',
  (event) => {
    if (event.target instanceof HTMLDetailsElement && event.target.open) fill(event.target);
  },
  true,
);
