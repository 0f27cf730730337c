// One spelling per path. Astro decodes a path (repeatedly), treats `\` as `/`, resolves `.` and `..`;
// a limiter that matched the raw text let `//_server-islands/…`, `/%5Fserver-islands/…` or
// `/x/../_server-islands/…` through unlimited while Astro served them as the island. The front
// therefore reads each path once into its canonical form, and the limiter, the API and Astro all see
// that form: decoded to a fixpoint, one slash between segments, no dot segments, re-encoded only where
// a URL needs it. A path that cannot be read so is refused.

import { catalogueText } from '../contract/catalogue/catalogue-text.ts';

export class PathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathError';
  }
}

/** Rounds of percent-decoding a path may need; a path encoded more deeply than this is refused. */
export const DECODE_ROUNDS = 3;

/** What a path keeps as it is: unreserved and sub-delimiter characters, `:`, `@`, `/` and `%`. */
const KEPT = /[A-Za-z0-9\-._~!$&'()*+,;=:@/%]/;

function decoded(path: string): string {
  let text = path;
  for (let round = 0; ; round += 1) {
    let next: string;
    try {
      // decodeURI leaves the escapes of `/ ? # ; : @ & = + $ ,` alone: %2F stays a byte of a segment.
      next = decodeURI(text);
    } catch {
      throw new PathError(catalogueText('BAD_PATH', { path: JSON.stringify(path) }, 'escape'));
    }
    if (next === text) return text;
    if (round >= DECODE_ROUNDS)
      throw new PathError(catalogueText('BAD_PATH', { path: JSON.stringify(path) }, 'depth'));
    text = next;
  }
}

function withoutDotSegments(path: string): string {
  const segments: string[] = [];
  const parts = path.split('/').slice(1);
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1;
    if (part === '.' || part === '..') {
      if (part === '..') segments.pop();
      // `/a/.` and `/a/b/..` name the folder: the path keeps its closing slash.
      if (last) segments.push('');
    } else segments.push(part);
  }
  return '/' + segments.join('/');
}

/**
 * A path nothing would change: no escape, no backslash, no empty segment but a closing slash's, no dot
 * segment, only characters kept as they are. Nearly every request's; answered as it is, unread.
 */
const ALREADY_CANONICAL =
  /^\/(?:(?!\.\.?\/)[A-Za-z0-9\-._~!$&'()*+,;=:@]+\/)*(?:(?!\.\.?$)[A-Za-z0-9\-._~!$&'()*+,;=:@]+)?$/;

/**
 * The canonical form of a request target's path (the part before `?`), or a PathError saying why it
 * has none. A canonical path is its own canonical form.
 */
export function canonicalPath(path: string): string {
  return ALREADY_CANONICAL.test(path) ? path : readCanonicalPath(path);
}

/** The canonical form read the whole way, whatever the path: what canonicalPath answers for any. */
export function readCanonicalPath(path: string): string {
  if (!path.startsWith('/'))
    throw new PathError(catalogueText('BAD_PATH', { target: JSON.stringify(path) }, 'target'));
  const plain = decoded(path)
    .replaceAll('\\', '/')
    .replace(/\/{2,}/g, '/');
  const resolved = withoutDotSegments(plain);
  let out = '';
  for (const char of resolved) out += KEPT.test(char) ? char : encodeURIComponent(char);
  return out;
}
