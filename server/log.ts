// Logging that a flood cannot turn into a disk-filler: each kind of message is written at most `perMinute`
// times a minute; the rest are counted and summed up in one line when the minute is over.

const WINDOW_MS = 60_000;

interface Window {
  start: number;
  written: number;
  dropped: number;
}

const windows = new Map<string, Window>();

export function logLimited(kind: string, message: string, detail?: unknown, perMinute = 10): void {
  const now = Date.now();
  let window = windows.get(kind);
  if (!window || now - window.start >= WINDOW_MS) {
    if (window && window.dropped > 0)
      console.error(`${kind}: ${window.dropped} more like this in the last minute, not logged`);
    window = { start: now, written: 0, dropped: 0 };
    windows.set(kind, window);
    if (windows.size > 1000) windows.delete(windows.keys().next().value!);
  }
  if (window.written >= perMinute) {
    window.dropped += 1;
    return;
  }
  window.written += 1;
  if (detail === undefined) console.error(`${kind}: ${message}`);
  else console.error(`${kind}: ${message}`, detail);
}
