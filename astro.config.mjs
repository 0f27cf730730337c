// @ts-check
import { defineConfig } from 'astro/config';
import mdx from '@astrojs/mdx';
import node from '@astrojs/node';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeColours, THEMES } from './src/lib/code-colours.ts';
import { islandPreloads } from './src/lib/island-preloads.ts';
import { siteUrlFrom } from './src/lib/site-url.ts';
import { openapiFile } from './scripts/openapi.ts';
import { previewImages } from './scripts/preview-images.ts';

/** The site's public URL (SITE_URL), when set: the canonical links, the sitemap, llms.txt's links. */
const SITE_URL = siteUrlFrom(process.env);

/** The project's own server code, which `node server/serve.ts` loads from source. */
const SERVER_DIR = fileURLToPath(new URL('./server/', import.meta.url));

/**
 * The server build imports server/ from source instead of bundling a copy of it: Node then loads the
 * island's server/ modules from the very files serve.ts loads, so a process holds one of each (one
 * runtime, one pool of leases) by construction. Only the server build: the browser's bundles keep
 * bundling the server/contract/ files they import.
 * @type {import('vite').Plugin}
 */
const serverFromSource = {
  name: 'the-owned-keyspace:server-from-source',
  apply: 'build',
  enforce: 'pre',
  applyToEnvironment: (environment) => environment.name === 'ssr',
  async resolveId(source, importer) {
    const resolved = await this.resolve(source, importer, { skipSelf: true });
    if (resolved && !resolved.external && resolved.id.startsWith(SERVER_DIR)) {
      return { id: resolved.id, external: 'absolute' };
    }
    return null;
  },
  /**
   * Each import of server/ made relative to the chunk that holds it (dist/server/chunks/x.mjs imports
   * ../../../server/…), so the built site keeps working wherever the project is moved.
   */
  renderChunk(code, chunk) {
    const from = dirname(join(this.environment.config.build.outDir, chunk.fileName));
    return code.replaceAll(
      new RegExp(`(["'])${escapeRegExp(SERVER_DIR)}([^"']+)\\1`, 'g'),
      (_, quote, rest) => {
        const path = relative(from, SERVER_DIR + rest);
        return quote + (path.startsWith('.') ? path : './' + path) + quote;
      },
    );
  },
};

/** @param {string} text */
function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What only the base sheet holds: the tokens' definitions (global.css's :root). */
const BASE_SHEET_MARK = '--bg:';

// Pages are prerendered at build time; the standalone node server renders the live explorer's server
// island. The JSON API under /api/ never reaches Astro: server/front/ answers it first.
export default defineConfig({
  ...(SITE_URL ? { site: SITE_URL } : {}),
  output: 'static',
  adapter: node({ mode: 'standalone' }),
  trailingSlash: 'ignore',
  // One render-blocking stylesheet a page: the site's base (global.css with the chrome every page shows,
  // the sheet that defines the tokens) stays a file the browser caches once for every page; every other
  // sheet — a component's <style> and the explorer's views.css, which Vite splits by the set of pages
  // and content entries that use them — is inlined into the page, however large, so moving styles into
  // their components never adds a request.
  build: { format: 'directory', inlineStylesheets: 'auto' },
  // :where() keeps a scoped rule's specificity what it was in one global sheet (a class, no attribute).
  scopedStyleStrategy: 'where',
  vite: {
    plugins: [serverFromSource],
    build: {
      assetsInlineLimit: (file, content) =>
        file.endsWith('.css') ? !content.toString().includes(BASE_SHEET_MARK) : undefined,
    },
  },
  // islandPreloads: one preload per server island, where Astro writes two (src/lib/island-preloads.ts)
  // openapiFile: the API's OpenAPI document, generated at build time into dist/openapi.json;
  // previewImages: each page's link-preview image, drawn once the pages are written
  integrations: [mdx(), islandPreloads(), openapiFile(SITE_URL), previewImages()],
  // the fences' colours as the source panels' are: classes, not a style per token (src/lib/code-colours.ts)
  markdown: {
    shikiConfig: { themes: THEMES, defaultColor: false, transformers: [codeColours] },
  },
  devToolbar: { enabled: false },
  // The experiments API accepts only application/json, which a cross-site form cannot send without a
  // CORS preflight; Astro's origin check would answer other content types with a bare-text 403 before
  // our handler can refuse them with a JSON error.
  security: { checkOrigin: false },
});
