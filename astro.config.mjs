// @ts-check
import { defineConfig } from 'astro/config';
import mdx from '@astrojs/mdx';
import node from '@astrojs/node';

// Pages are prerendered at build time; the standalone node server renders the live explorer's server
// island. The JSON API under /api/ never reaches Astro: server/front/ answers it first.
export default defineConfig({
  output: 'static',
  adapter: node({ mode: 'standalone' }),
  trailingSlash: 'ignore',
  build: { format: 'directory', inlineStylesheets: 'never' },
  integrations: [mdx()],
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
