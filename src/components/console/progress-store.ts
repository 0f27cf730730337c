// The exercises a reader solved, kept in this browser only (localStorage), and the one event that tells
// the course nav's marks and the module summary to redraw. Nothing is sent anywhere.

const STORE = 'emq-exercises-solved';
/** Dispatched on document after a solve or a reset, so every view of the progress redraws. */
export const PROGRESS_EVENT = 'emq-progress';

export function solved(): Set<string> {
  try {
    return new Set(JSON.parse(localStorage.getItem(STORE) ?? '[]') as string[]);
  } catch {
    return new Set();
  }
}

function changed(): void {
  document.dispatchEvent(new Event(PROGRESS_EVENT));
}

export function remember(id: string): void {
  const done = solved();
  done.add(id);
  try {
    localStorage.setItem(STORE, JSON.stringify([...done]));
  } catch {
    // storage off: the verdict still shows, only the progress is not kept
  }
  changed();
}

/** Forgets every solved exercise, on every page. */
export function forget(): void {
  try {
    localStorage.removeItem(STORE);
  } catch {
    // storage off: nothing was kept
  }
  changed();
}

/** Redraws `draw` now, whenever the progress changes on this page, and when another tab changes it. */
export function onProgress(draw: () => void): void {
  draw();
  document.addEventListener(PROGRESS_EVENT, draw);
  addEventListener('storage', (event) => {
    if (event.key === STORE || event.key === null) draw();
  });
}

/** How many of these ids are solved. */
export function solvedOf(ids: readonly string[]): number {
  const done = solved();
  return ids.filter((id) => done.has(id)).length;
}
