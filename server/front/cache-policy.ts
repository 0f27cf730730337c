// How long a browser or a cache may keep what the site sends. Astro's hashed assets (`/_astro/*`: the
// name changes whenever the bytes do) are kept for a year and never asked again; everything else Astro
// serves (pages, their markdown twins, llms.txt) is kept but revalidated on every use, by the ETag the
// static server sends (a 304 costs no body). The JSON API says its own (write-answer.ts, fixed-answer.ts).

import type { ServerResponse } from 'node:http';

const YEAR_S = 365 * 24 * 3600;
export const IMMUTABLE = `public, max-age=${YEAR_S}, immutable`;
export const REVALIDATE = 'public, no-cache';

/** Sets the policy of what Astro will answer at `path`; a handler that says otherwise overrides it. */
export function setCachePolicy(path: string, response: ServerResponse): void {
  // A server island is the sandbox's state now: never kept.
  if (path.startsWith('/_server-islands/')) return void response.setHeader('cache-control', 'no-store');
  response.setHeader('cache-control', path.startsWith('/_astro/') ? IMMUTABLE : REVALIDATE);
}
