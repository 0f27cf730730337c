// One preload per server island. Astro 7.3.5 writes a server island's `<link rel="preload" as="fetch">`
// each time it works out the island's URL, and on a page whose island sits in MDX content it does so
// twice: the MDX is rendered (island included) while the head is being gathered, and the head pass
// (ServerIslandComponent.init) asks for the URL before that render has cached it. Each pass encrypts
// the props afresh, so the page preloads two different URLs, fetches both — two island renders on the
// server, one thrown away — and its script uses one. After the build this drops every island preload
// whose URL no island script on the page fetches; once Astro preloads once, it finds nothing to drop.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';

/** A server island's preload, its href as Astro writes it (attribute-escaped). */
const ISLAND_PRELOAD = /<link rel="preload" as="fetch" href="([^"]*\/_server-islands\/[^"]*)"[^>]*>/g;
/** The URL an island's inline script fetches, a JSON string literal (Astro's stringifyForScript). */
const ISLAND_FETCH = /\bfetch\(("(?:[^"\\]|\\.)*\/_server-islands\/(?:[^"\\]|\\.)*")/g;

const unescapeAttribute = (value: string) => value.replaceAll('&quot;', '"').replaceAll('&amp;', '&');

/** `html` without the island preloads that none of its island scripts fetches. */
export function dropUnusedIslandPreloads(html: string): string {
  const fetched = new Set([...html.matchAll(ISLAND_FETCH)].map(([, literal]) => JSON.parse(literal!)));
  return html.replace(ISLAND_PRELOAD, (link, href: string) =>
    fetched.has(unescapeAttribute(href)) ? link : '',
  );
}

/** The integration: every built page rewritten by dropUnusedIslandPreloads. */
export function islandPreloads(): AstroIntegration {
  return {
    name: 'the-owned-keyspace:island-preloads',
    hooks: {
      'astro:build:done': async ({ dir }) => {
        const root = fileURLToPath(dir);
        const pages = (await readdir(root, { recursive: true })).filter((name) => name.endsWith('.html'));
        for (const page of pages) {
          const file = join(root, page);
          const html = await readFile(file, 'utf8');
          const kept = dropUnusedIslandPreloads(html);
          if (kept !== html) await writeFile(file, kept);
        }
      },
    },
  };
}
