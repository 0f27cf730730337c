// The failure log: one JSON line on standard error per failure (time, level, kind, message, the stack
// when there is one, and the request's id and experiment when it happened while serving one, so it is
// found beside its line in the access log), and never a disk-filler under a flood: each kind of message
// is written at most `perMinute` times a minute; the rest are counted and summed up in one line when the
// minute is over.

import { jsonLine } from './observe/json-line.ts';
import { currentRequest } from './observe/request-context.ts';

const WINDOW_MS = 60_000;

interface Window {
  start: number;
  written: number;
  dropped: number;
}

const windows = new Map<string, Window>();

/** What a detail adds to the line: an error's stack (its message is the line's), or the value in words. */
function detailOf(detail: unknown): Record<string, string> {
  if (detail === undefined) return {};
  if (detail instanceof Error) return { stack: detail.stack ?? `${detail.name}: ${detail.message}` };
  return { detail: typeof detail === 'string' ? detail : String(detail) };
}

export function logLimited(kind: string, message: string, detail?: unknown, perMinute = 10): void {
  const now = Date.now();
  let window = windows.get(kind);
  if (!window || now - window.start >= WINDOW_MS) {
    if (window && window.dropped > 0)
      jsonLine(process.stderr, {
        level: 'error',
        kind,
        message: `${window.dropped} more like this in the last minute, not logged`,
      });
    window = { start: now, written: 0, dropped: 0 };
    windows.set(kind, window);
    if (windows.size > 1000) windows.delete(windows.keys().next().value!);
  }
  if (window.written >= perMinute) {
    window.dropped += 1;
    return;
  }
  window.written += 1;
  const request = currentRequest();
  jsonLine(process.stderr, {
    level: 'error',
    kind,
    message,
    id: request?.id,
    experiment: request?.experiment,
    ...detailOf(detail),
  });
}
