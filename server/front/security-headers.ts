// The headers of a public site, on every answer the front writes or hands on: a Content-Security-Policy
// that runs scripts from this site only, no framing, no MIME sniffing, no full referrer to others.
// The pages' inline scripts (the theme script, Astro's server-island loader) are allowed by their
// sha256, computed here from the built pages themselves when the front starts — never a list kept by
// hand — so a page whose inline script changes is allowed after the next build with nothing to edit.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** An inline script's body, as the browser hashes it: the text between its tags (none with a src). */
const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script[\s/>]/gi;

/** The CSP source of every inline script in `html`: `'sha256-…'` of its exact text. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const [, attributes = '', body = ''] of html.matchAll(SCRIPT)) {
    if (/\ssrc\s*=/i.test(attributes)) continue;
    hashes.push(`'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`);
  }
  return hashes;
}

/** Every `.html` file under `dir`. */
function htmlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.html'))
    .map((name) => join(dir, name));
}

/** The policy for a site whose built pages are under `clientDir`. */
export function contentSecurityPolicy(clientDir: string): string {
  const hashes = new Set(
    htmlFiles(clientDir).flatMap((file) => inlineScriptHashes(readFileSync(file, 'utf8'))),
  );
  return [
    "default-src 'self'",
    `script-src 'self' ${[...hashes].sort().join(' ')}`.trim(),
    // 'unsafe-inline' for styles only: Shiki writes each token's colours as a style="--shiki-…"
    // attribute, and Astro inlines the components' sheets into each page as <style> elements; a style
    // can neither run code nor reach the network beyond img-src and font-src.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The headers every answer carries, the policy among them. */
export function siteHeaders(clientDir: string): Readonly<Record<string, string>> {
  return {
    'content-security-policy': contentSecurityPolicy(clientDir),
    // frame-ancestors for browsers that read it, X-Frame-Options for those that predate it.
    'x-frame-options': 'DENY',
    // JSON that echoes a reader's bytes is never read as HTML or script.
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
  };
}
