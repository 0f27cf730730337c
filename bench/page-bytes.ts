// Each course page's weight beside a Starlight page of the same text: HTML, JS at load, everything at
// load (brotli, as served), and the element count, read in Chromium at 412 px (scripts/load-bytes.ts).
// The Starlight site is built here, in a temporary directory of its own (never in this project's
// package.json): the latest @astrojs/starlight from the npm registry on this project's Astro version,
// one page per course page made of that page's markdown twin (the same text; its source panels as
// fenced code, its explorer as curl lines), served by a static server that compresses through our
// front's own compressResponse, so both sites go out at the same brotli quality. Prints figures;
// asserts nothing. The install is kept between runs (STARLIGHT_DIR moves it).
// Run: node bench/page-bytes.ts            (--no-starlight: this site's figures alone)
import { spawnSync } from 'node:child_process';
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { compressResponse } from '../server/front/compress.ts';
import { loadBytes, type LoadBytes } from '../scripts/load-bytes.ts';
import { CLIENT, COURSE_ROUTES, ROOT, startSite } from '../scripts/site.ts';

const WITH_STARLIGHT = !process.argv.includes('--no-starlight');
const NOT_FOUND = '/no-such-page/';
const ROUTES = [...COURSE_ROUTES, NOT_FOUND];

/** The island has arrived once no explorer still shows the fallback's "loading" state. */
const islandArrived = async (page: Page) => {
  if ((await page.locator('[data-explorer]').count()) === 0) return;
  await page.locator('[data-explorer]:not([data-sandbox="loading"])').first().waitFor({ timeout: 60_000 });
};

/** A course route's markdown twin in the built site: `/` → index.md, `/a/b/` → a/b.md. */
const twinFile = (route: string) =>
  join(CLIENT, route === '/' ? 'index.md' : route.replace(/\/$/, '') + '.md');

/** The twin as a Starlight page: its `# title` and `> summary` become the frontmatter. */
function starlightPage(route: string): string {
  const text = readFileSync(twinFile(route), 'utf8');
  const [, title = route, summary = '', body = ''] = /^# (.*)\n+(?:> (.*)\n+)?([\s\S]*)$/.exec(text) ?? [];
  const yaml = (s: string) => JSON.stringify(s);
  return `---\ntitle: ${yaml(title)}\ndescription: ${yaml(summary)}\n---\n\n${body}`;
}

const run = (cmd: string, args: string[], cwd: string) => {
  const bin = join(ROOT, 'node_modules/.bin');
  const result = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, ASTRO_TELEMETRY_DISABLED: '1' },
  });
  if (result.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout.trim();
};

/** Builds the Starlight site of the course's text; returns its dist/ and the versions it used. */
function buildStarlight(): { dist: string; starlight: string; astro: string } {
  const astro = JSON.parse(readFileSync(join(ROOT, 'node_modules/astro/package.json'), 'utf8')).version;
  const starlight = run('npm', ['view', '@astrojs/starlight', 'version'], ROOT);
  const dir =
    process.env.STARLIGHT_DIR ?? join(tmpdir(), `the-owned-keyspace-starlight-${starlight}-astro-${astro}`);
  mkdirSync(dir, { recursive: true });
  // our overrides too (the Vite version this project's Astro builds with): the same toolchain on both sides
  const { overrides } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const manifest = {
    name: 'starlight-beside',
    private: true,
    type: 'module',
    dependencies: { astro: astro, '@astrojs/starlight': starlight },
    overrides,
  };
  const manifestFile = join(dir, 'package.json');
  const stale = !existsSync(manifestFile) || readFileSync(manifestFile, 'utf8') !== JSON.stringify(manifest);
  writeFileSync(manifestFile, JSON.stringify(manifest));
  if (stale || !existsSync(join(dir, 'node_modules/@astrojs/starlight/package.json')))
    run('npm', ['install', '--no-audit', '--no-fund'], dir);
  writeFileSync(
    join(dir, 'astro.config.mjs'),
    `import { defineConfig } from 'astro/config';
import starlight from '@astrojs/starlight';
export default defineConfig({ integrations: [starlight({ title: 'the owned keyspace' })] });
`,
  );
  const docs = join(dir, 'src/content/docs');
  rmSync(docs, { recursive: true, force: true });
  mkdirSync(docs, { recursive: true });
  writeFileSync(
    join(dir, 'src/content.config.ts'),
    `import { defineCollection } from 'astro:content';
import { docsLoader } from '@astrojs/starlight/loaders';
import { docsSchema } from '@astrojs/starlight/schema';
export const collections = { docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }) };
`,
  );
  for (const route of COURSE_ROUTES) {
    const file =
      route === '/' ? join(docs, 'index.md') : join(docs, route.slice(1).replace(/\/$/, '') + '.md');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, starlightPage(route));
  }
  run(join(dir, 'node_modules/.bin/astro'), ['build'], dir);
  return { dist: join(dir, 'dist'), starlight, astro };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.md': 'text/markdown; charset=utf-8',
};

/** The built files at `dist`, compressed as our front compresses (compressResponse), on a free port. */
async function serveStatic(dist: string): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    compressResponse(request, response);
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    let file = join(dist, path);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    const found = file.startsWith(dist) && existsSync(file);
    if (!found) file = join(dist, '404.html');
    response.writeHead(found ? 200 : 404, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the static server has no port');
  return { url: `http://127.0.0.1:${address.port}`, server };
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
try {
  const ours = new Map<string, LoadBytes>();
  const site = await startSite();
  try {
    for (const route of ROUTES) ours.set(route, await loadBytes(browser, site.url + route, islandArrived));
  } finally {
    await site.close();
  }
  const theirs = new Map<string, LoadBytes>();
  let versions = '';
  if (WITH_STARLIGHT) {
    const built = buildStarlight();
    versions = `Starlight ${built.starlight} on Astro ${built.astro}`;
    const { url, server } = await serveStatic(built.dist);
    try {
      for (const route of ROUTES) theirs.set(route, await loadBytes(browser, url + route));
    } finally {
      server.close();
    }
  }
  const n = (x: number) => x.toLocaleString('en');
  const cell = (a: number, b: number | undefined) =>
    b === undefined ? n(a) : `${n(a)} / ${n(b)} = ${(a / b).toFixed(2)}×`;
  const head = ['page', 'HTML br', 'JS at load br', 'JS once idle br', 'total br', 'elements'];
  const rows = ROUTES.map((route) => {
    const a = ours.get(route)!;
    const b = theirs.get(route);
    return [
      route,
      cell(a.html, b?.html),
      cell(a.js, b?.js),
      cell(a.jsSettled, b?.jsSettled),
      cell(a.total, b?.total),
      cell(a.elements, b?.elements),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(
    WITH_STARLIGHT
      ? `this site / ${versions} (the same text: each page's markdown twin), bytes as served (brotli), 412 px`
      : 'this site, bytes as served (brotli), 412 px',
  );
  console.log(
    'JS at load: requested by the load event; once idle and total: all a page fetched, idle too, the reader not moving',
  );
  console.log(line(head));
  for (const r of rows) console.log(line(r));
  const twice = ROUTES.flatMap((route) => {
    const paths = ours.get(route)!.resources.map((r) => r.path);
    return [...new Set(paths.filter((p, i) => paths.indexOf(p) !== i))].map((p) => `${route}: ${p}`);
  });
  if (twice.length) console.log(`fetched twice: ${twice.join(', ')}`);
} finally {
  await browser.close();
}
