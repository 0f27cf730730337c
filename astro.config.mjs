// @ts-check
import { defineConfig } from 'astro/config';
import mdx from '@astrojs/mdx';
import node from '@astrojs/node';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's own server code, which `node server/serve.ts` loads from source. */
const SERVER_DIR = fileURLToPath(new URL('./server/', import.meta.url));

/**
 * The server build imports server/ from source instead of bundling a copy of it: Node then loads the
 * island's server/ modules from the very files serve.ts loads, so a process holds one of each (one
 * runtime, one pool of leases) by construction. Only the server build: the browser's bundles keep
 * bundling the browser-safe server/ files they import.
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

// Pages are prerendered at build time; the standalone node server renders the live explorer's server
// island. The JSON API under /api/ never reaches Astro: server/front/ answers it first.
export default defineConfig({
  output: 'static',
  adapter: node({ mode: 'standalone' }),
  trailingSlash: 'ignore',
  build: { format: 'directory', inlineStylesheets: 'never' },
  integrations: [mdx()],
  vite: { plugins: [serverFromSource] },
  markdown: {
    shikiConfig: {
      themes: { light: 'github-light-default', dark: 'github-dark-default' },
      defaultColor: false,
    },
  },
  devToolbar: { enabled: false },
  // The experiments API accepts only application/json, which a cross-site form cannot send without a
  // CORS preflight; Astro's origin check would answer other content types with a bare-text 403 before
  // our handler can refuse them with a JSON error.
  security: { checkOrigin: false },
});
