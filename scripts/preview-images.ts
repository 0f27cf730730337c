// The link-preview image of every page (og:image, twitter:image), made at build time: after Astro has
// written the pages, each built page that names an image gets it drawn from what its head says — its
// og:title and og:description — on a 1200×630 card in the site's colours, rendered by Chromium
// (Debian's, driven by playwright-core, as scripts/favicon.ts renders the icon). Pages name an image
// only when the site's public URL is set (SITE_URL: src/lib/site-url.ts), so a build without it
// launches no browser.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const PREVIEW_SIZE = { width: 1200, height: 630 } as const;

/** The card: the course's name, the page's title and summary, and the key every page is about. */
const CARD = `<!doctype html><html><head><style>
  html, body { margin: 0; width: 1200px; height: 630px; }
  body { box-sizing: border-box; padding: 72px 80px; background: #0e1117; color: #eef0f3;
    font-family: 'DejaVu Sans', 'Liberation Sans', sans-serif; display: flex; flex-direction: column; }
  .site { font: 700 30px 'DejaVu Sans Mono', monospace; color: #f2a65f; letter-spacing: 0.02em; }
  h1 { font-size: 66px; line-height: 1.1; margin: 36px 0 24px; }
  p { font-size: 30px; line-height: 1.4; color: #a5acb8; margin: 0;
    display: -webkit-box; -webkit-line-clamp: 4; -webkit-box-orient: vertical; overflow: hidden; }
  .key { margin-top: auto; font: 32px 'DejaVu Sans Mono', monospace; color: #a5acb8; }
  .key b { color: #f2a65f; }
</style></head><body>
  <div class="site">{} the owned keyspace</div>
  <h1></h1><p></p>
  <div class="key">emq:<b>{</b>q<b>}</b>:&lt;type&gt;</div>
</body></html>`;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** An attribute's value as the page means it (Astro escapes &, <, >, " and non-ASCII as entities). */
function unescape(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#')
      return String.fromCodePoint(
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1)),
      );
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function meta(html: string, property: string): string | undefined {
  const tag = new RegExp(`<meta property="${property}" content="([^"]*)"`).exec(html);
  return tag ? unescape(tag[1]!) : undefined;
}

/** Every built page (`index.html` under `dir`) with the image it names and what to draw on it. */
export function pagesNamingImages(dir: string): Array<{ image: string; title: string; description: string }> {
  const out: Array<{ image: string; title: string; description: string }> = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.html')) {
        const html = readFileSync(path, 'utf8');
        const image = meta(html, 'og:image');
        if (image)
          out.push({
            image: new URL(image).pathname,
            title: meta(html, 'og:title') ?? '',
            description: meta(html, 'og:description') ?? '',
          });
      }
    }
  };
  walk(dir);
  return out;
}

/** Draws each page's image into `dir` (the built client folder) at the path its head names. */
export async function drawPreviewImages(dir: string): Promise<number> {
  const pages = pagesNamingImages(dir);
  if (pages.length === 0) return 0;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const tab = await browser.newPage({ viewport: PREVIEW_SIZE });
    for (const page of pages) {
      await tab.setContent(CARD);
      await tab.evaluate(
        ({ title, description }) => {
          document.querySelector('h1')!.textContent = title.replace(/ · the owned keyspace$/, '');
          document.querySelector('p')!.textContent = description;
        },
        { title: page.title, description: page.description },
      );
      const file = join(dir, page.image);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, await tab.screenshot({ type: 'png' }));
    }
  } finally {
    await browser.close();
  }
  return pages.length;
}

/** The build's step that draws them, once Astro has written the pages. */
export function previewImages() {
  return {
    name: 'the-owned-keyspace:preview-images',
    hooks: {
      'astro:build:done': async ({ dir, logger }: { dir: URL; logger: { info(text: string): void } }) => {
        const drawn = await drawPreviewImages(fileURLToPath(dir));
        if (drawn > 0) logger.info(`${drawn} link-preview images drawn`);
      },
    },
  };
}
