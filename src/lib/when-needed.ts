// A part of the page whose code loads only when the reader needs it: when the part nears the viewport
// (a viewport ahead of it, so it is there by the time the reader is), or on the first focus or pointer
// press inside it, whichever comes first — never at load. The code is the part's own module, imported
// once; its custom elements wire themselves when they are defined, the island's HTML included, whenever
// that arrives. A form submitted inside the part before its code has run is held, then submitted again
// once it has (the code's own listeners take it), so a quick reader's first click never reloads the page;
// a field typed into meanwhile is announced again (an input event, a change event if it had one), so
// what the reader typed is read as if the code had been there.
// Browser only.

/** How far ahead of the viewport a part starts loading: one viewport height above and below. */
const AHEAD = '100% 0px';

export interface Needed<T> {
  /** Loads the part's module now (once; again after a failed attempt) and resolves with it. */
  load(): Promise<T>;
}

export function whenNeeded<T>(selector: string, importPart: () => Promise<T>): Needed<T> {
  const parts = [...document.querySelectorAll<HTMLElement>(selector)];
  let loading: Promise<T> | null = null;
  const held: { form: HTMLFormElement; submitter: HTMLElement | null }[] = [];
  const edited = new Map<EventTarget, Set<string>>();

  const note = (event: Event) => {
    if (!event.isTrusted || !event.target) return;
    const kinds = edited.get(event.target) ?? new Set<string>();
    edited.set(event.target, kinds.add(event.type));
    start();
  };

  const hold = (event: Event) => {
    const form = event.target as HTMLFormElement;
    event.preventDefault();
    held.push({ form, submitter: (event as SubmitEvent).submitter });
    start();
  };
  // A failed import is tried again on the next approach or touch; the page says nothing more of it.
  const start = () => void load().catch(() => {});
  const observer =
    'IntersectionObserver' in window
      ? new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && start(), {
          rootMargin: AHEAD,
        })
      : null;

  function load(): Promise<T> {
    loading ??= importPart().then(
      (part) => {
        observer?.disconnect();
        for (const el of parts) {
          el.removeEventListener('focusin', start);
          el.removeEventListener('pointerdown', start);
          el.removeEventListener('submit', hold, true);
          el.removeEventListener('input', note, true);
          el.removeEventListener('change', note, true);
        }
        for (const [field, kinds] of edited)
          for (const kind of ['input', 'change'])
            if (kinds.has(kind)) field.dispatchEvent(new Event(kind, { bubbles: true }));
        edited.clear();
        for (const { form, submitter } of held.splice(0)) if (form.isConnected) form.requestSubmit(submitter);
        return part;
      },
      (error: unknown) => {
        loading = null;
        throw error;
      },
    );
    return loading;
  }

  for (const el of parts) {
    observer?.observe(el);
    el.addEventListener('focusin', start);
    el.addEventListener('pointerdown', start);
    el.addEventListener('submit', hold, true);
    el.addEventListener('input', note, true);
    el.addEventListener('change', note, true);
  }
  // Without an observer (a very old browser) nothing would say when the part nears: load it now.
  if (!observer && parts.length) start();
  return { load };
}
