// The site built for its public URL (SITE_URL) as the machines that come read it: the reference llms.txt
// tools (PyPI llms-txt, pinned and installed by scripts/setup.sh) parse the built llms.txt and build a
// context from it against the running site — every section's link fetched, none twice, none HTML; every
// page has its canonical link, Open Graph and Twitter card tags and a preview image that is a real PNG of
// 1200×630; sitemap.xml is well-formed XML (a real parser) listing the content collection's pages;
// robots.txt names it; the OpenAPI document names the site as its server; and changing SITE_URL makes
// the build stale. A copy of the project is built for the address its site then listens on, so the
// project's own dist/ (every other site test's) is never rebuilt under them.

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { HtmlValidate } from 'html-validate';
import { freePort } from '../../server/sandbox/free-port.ts';
import { COURSE_ROUTES, SITE_NODE_FLAGS } from '../../scripts/site.ts';
import { copyOfProject } from '../support/project-copy.ts';
import { previewImageOf } from '../../src/lib/paths.ts';
import { until } from '../support/until.ts';

const LLMS_VENV = join(
  process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
  'the-owned-keyspace',
  'llms-venv',
);
const PYTHON = join(LLMS_VENV, 'bin', 'python');
const CLI = join(LLMS_VENV, 'bin', 'llms_txt2ctx');

let copy = '';
let siteUrl = '';
let server: ChildProcess | undefined;
let log = '';

const get = async (url: string) => {
  const response = await fetch(new URL(url, siteUrl));
  return { status: response.status, type: response.headers.get('content-type') ?? '', response };
};
const text = async (url: string) => (await (await get(url)).response.text()) as string;

before(async () => {
  copy = copyOfProject(
    'public-url',
    ['astro.config.mjs', 'package.json', 'tsconfig.json', 'src', 'content', 'public', 'server', 'scripts'],
    ['node_modules', 'native-module'],
  );
  const port = await freePort();
  siteUrl = `http://127.0.0.1:${port}`;
  const env = { ...process.env, SITE_URL: siteUrl, ASTRO_TELEMETRY_DISABLED: '1' };
  const built = spawnSync(process.execPath, [join(copy, 'scripts/build-site.ts')], {
    cwd: copy,
    env,
    encoding: 'utf8',
  });
  assert.equal(built.status, 0, built.stdout + built.stderr);
  // its own sandbox, as `npm start` starts one: the pages, twins and catalogue need none, but the site does
  server = spawn(process.execPath, [...SITE_NODE_FLAGS, join(copy, 'server/serve.ts')], {
    cwd: copy,
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      VALKEY_URL: '',
      VALKEY_CLUSTER_URL: '',
      VALKEY9_AT_START: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => (log += d));
  server.stderr!.on('data', (d) => (log += d));
  await until(
    'the site built for its public URL answering',
    async () => {
      if (server!.exitCode !== null) throw new Error(`the site exited:\n${log}`);
      return (await fetch(siteUrl + '/').catch(() => null))?.ok === true;
    },
    60_000,
  );
});

after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((done) => server!.once('exit', done));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(copy, { recursive: true, force: true });
});

/**
 * Runs one of the reference package's programs in a fresh folder (the tool reads local files instead when
 * a pyproject.toml is above it), without blocking this process: a kept-alive connection to the site that
 * the site closes meanwhile is then seen closed, not reused by the next fetch.
 */
async function reference(program: string, ...args: string[]): Promise<string> {
  const child = spawn(program, args, { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const status = await new Promise<number | null>((done, fail) => {
    child.once('error', (error) =>
      fail(new Error(`${program}: run scripts/setup.sh, which installs llms-txt (${error.message})`)),
    );
    child.once('close', done);
  });
  assert.equal(status, 0, stderr);
  return stdout;
}

describe('llms.txt and the reference tools', () => {
  it('is the built file, served, with every link absolute on the site', async () => {
    const built = readFileSync(join(copy, 'dist/client/llms.txt'), 'utf8');
    assert.equal(await text('/llms.txt'), built);
    const links = [...built.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    assert.ok(links.length >= COURSE_ROUTES.length + 2);
    for (const link of links) assert.ok(link.startsWith(siteUrl + '/'), link);
  });

  it('parses with llms_txt.parse_llms_file: title, summary, three sections, each link once', async () => {
    const parsed = JSON.parse(
      await reference(
        PYTHON,
        '-c',
        `import json, sys, llms_txt
d = llms_txt.parse_llms_file(open(sys.argv[1]).read())
print(json.dumps({"title": d.title, "summary": d.summary, "sections": {k: [dict(l) for l in v] for k, v in d.sections.items()}}))`,
        join(copy, 'dist/client/llms.txt'),
      ),
    );
    assert.equal(parsed.title, 'The owned keyspace');
    assert.match(parsed.summary, /^An interactive course on module 01 of the EchoMQ protocol/);
    assert.deepEqual(Object.keys(parsed.sections), ['Course', 'Dives', 'Optional']);
    const urls = Object.values(parsed.sections as Record<string, { url: string }[]>)
      .flat()
      .map((l) => l.url);
    assert.deepEqual(urls, [...new Set(urls)], 'no resource linked twice');
    for (const route of COURSE_ROUTES) {
      const twin = route === '/' ? '/index.md' : route.replace(/\/$/, '') + '.md';
      assert.ok(urls.includes(siteUrl + twin), `${twin} is in a section`);
    }
    assert.deepEqual(
      parsed.sections.Optional.map((l: { url: string }) => new URL(l.url).pathname),
      ['/api/experiments', '/api/openapi.json'],
    );
  });

  it('builds a context with llms_txt2ctx --optional from the running site: every resource, none HTML', async () => {
    const file = join(copy, 'dist/client/llms.txt');
    const context = await reference(CLI, file, '--optional', 'True');
    assert.match(context, /^<project title="The owned keyspace"/);
    assert.doesNotMatch(context, /<!doctype html|<html\b/i, 'no HTML page in the context');
    // each twin's text is in it whole, as the site serves it (the tool reports no failed fetch)
    for (const route of COURSE_ROUTES) {
      const twin = await text(route === '/' ? '/index.md' : route.replace(/\/$/, '') + '.md');
      assert.ok(context.includes(twin.trim()), `${route}'s twin is in the context, whole`);
    }
    const catalogue = await text('/api/experiments');
    assert.ok(context.includes(catalogue), 'the catalogue is in the context');
    assert.ok(context.includes(await text('/api/openapi.json')), 'the OpenAPI document is in the context');
    const docs = [...context.matchAll(/<doc title="([^"]*)"/g)].map((m) => m[1]);
    assert.equal(docs.length, COURSE_ROUTES.length + 2, docs.join(', '));
    console.log(`llms_txt2ctx --optional: ${docs.length} documents, ${Buffer.byteLength(context)} bytes`);
  });
});

describe('for search engines and link previews', () => {
  const validator = new HtmlValidate({ extends: ['html-validate:standard'] });

  it('gives every page its canonical link, Open Graph and Twitter card tags, and valid HTML', async () => {
    for (const route of COURSE_ROUTES) {
      const html = await text(route);
      const meta = (name: string) =>
        new RegExp(`<meta (?:property|name)="${name}" content="([^"]*)"`).exec(html)?.[1];
      const url = new URL(route, siteUrl).href;
      assert.match(html, new RegExp(`<link rel="canonical" href="${url}">`), route);
      assert.equal(meta('og:url'), url, route);
      assert.equal(meta('og:title'), /<title>([^<]*)<\/title>/.exec(html)![1], route);
      assert.equal(
        meta('og:description'),
        /<meta name="description" content="([^"]*)"/.exec(html)![1],
        route,
      );
      assert.equal(meta('og:image'), new URL(previewImageOf(route), siteUrl).href, route);
      assert.equal(meta('twitter:card'), 'summary_large_image', route);
      assert.equal(meta('twitter:image'), meta('og:image'), route);
      const report = await validator.validateString(html, route);
      assert.deepEqual(
        report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`)),
        [],
        route,
      );
    }
    const missing = await text('/no-such-page/');
    assert.doesNotMatch(missing, /rel="canonical"/, 'the 404 names no canonical page');
  });

  it('serves each page’s preview image: a PNG of 1200×630, drawn at build time', async () => {
    for (const route of COURSE_ROUTES) {
      const image = await get(previewImageOf(route));
      assert.equal(image.status, 200, route);
      assert.equal(image.type, 'image/png', route);
      const bytes = Buffer.from(await image.response.arrayBuffer());
      assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], route);
      assert.deepEqual([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], [1200, 630], route);
    }
  });

  it('has a sitemap.xml of well-formed XML listing every page of the collection, named by robots.txt', async () => {
    const sitemap = await get('/sitemap.xml');
    assert.equal(sitemap.status, 200);
    const xml = await sitemap.response.text();
    assert.equal(XMLValidator.validate(xml), true);
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(xml);
    assert.equal(parsed.urlset['@_xmlns'], 'http://www.sitemaps.org/schemas/sitemap/0.9');
    const locs = [parsed.urlset.url].flat().map((u: { loc: string }) => u.loc);
    assert.deepEqual(
      locs,
      COURSE_ROUTES.map((route) => new URL(route, siteUrl).href),
    );
    const robots = await text('/robots.txt');
    assert.match(robots, /^User-agent: \*$/m);
    assert.match(robots, /^Disallow: \/_server-islands\/$/m);
    assert.match(robots, new RegExp(`^Sitemap: ${siteUrl}/sitemap.xml$`, 'm'));
  });

  it('names the site as the OpenAPI document’s server', async () => {
    const document = await (await get('/api/openapi.json')).response.json();
    assert.deepEqual(document.servers, [{ url: siteUrl }]);
  });
});

it('makes the build stale when SITE_URL changes, and not when it stays', () => {
  const stale = (value: string) => {
    const result = spawnSync(
      process.execPath,
      ['-e', "import('./scripts/site.ts').then((s) => process.stdout.write(String(s.isStale())))"],
      { cwd: copy, env: { ...process.env, SITE_URL: value }, encoding: 'utf8' },
    );
    assert.equal(result.status, 0, result.stderr);
    return result.stdout;
  };
  assert.equal(stale(siteUrl), 'false');
  assert.equal(stale(`${siteUrl}/`), 'false', 'the same origin, written with its slash');
  assert.equal(stale('https://keyspace.example.org'), 'true');
  assert.equal(stale(''), 'true');
});
