// The machine-readable map: /llms.txt per llmstxt.org, every link resolving in the built site, the
// committed top-level llms.txt current; /llms-full.txt; a markdown twin for every page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COURSE_ROUTES, ROOT, startSite, type Site } from '../../scripts/site.ts';

let site: Site;
before(async () => {
  site = await startSite();
});
after(async () => {
  await site?.close();
});

const get = async (path: string) => {
  const r = await fetch(site.url + path);
  return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
};

test('llms.txt follows llmstxt.org: one H1, a blockquote summary, H2 sections of link lists', async () => {
  const { status, text } = await get('/llms.txt');
  assert.equal(status, 200);
  const blocks = text.trimEnd().split(/\n\n+/);
  assert.match(blocks[0]!, /^# \S.*$/, 'starts with the H1');
  assert.equal(text.match(/^# /gm)!.length, 1, 'exactly one H1');
  assert.match(blocks[1]!, /^> \S/, 'then the blockquote summary');
  const firstH2 = blocks.findIndex((b) => b.startsWith('## '));
  assert.ok(firstH2 > 1);
  for (const b of blocks.slice(2, firstH2))
    assert.ok(!/^#/.test(b), 'details before the sections carry no heading');
  let section = '';
  let links = 0;
  for (const b of blocks.slice(firstH2)) {
    if (b.startsWith('## ')) {
      assert.match(b, /^## [^\n]+$/);
      section = b;
      continue;
    }
    assert.ok(section, 'a list belongs to a section');
    for (const line of b.split('\n')) {
      assert.match(line, /^- \[[^\]]+\]\([^)\s]+\)(: .+)?$/, `list line: ${line}`);
      links++;
    }
  }
  assert.ok(links >= COURSE_ROUTES.length);
});

test('every link in llms.txt resolves in the built site', async () => {
  const { text } = await get('/llms.txt');
  const targets = [...text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
  for (const t of targets) {
    const { status } = await get(t);
    assert.equal(status, 200, t);
  }
  // each page of the course is in the map, by its markdown twin
  for (const route of COURSE_ROUTES) {
    const twin = route === '/' ? '/index.md' : route.replace(/\/$/, '') + '.md';
    assert.ok(targets.includes(twin), `llms.txt lists ${twin}`);
  }
});

test('the committed llms.txt is the one the site serves (regenerate: node scripts/llms.ts)', async () => {
  const { text } = await get('/llms.txt');
  assert.equal(readFileSync(join(ROOT, 'llms.txt'), 'utf8'), text);
});

test('every page links its markdown twin, and the twin is the page as markdown', async () => {
  for (const route of COURSE_ROUTES) {
    const { text: html } = await get(route);
    const m = /<link rel="alternate" type="text\/markdown" href="([^"]+)"/.exec(html);
    assert.ok(m, `${route} links a markdown twin`);
    const twin = await get(m[1]!);
    assert.equal(twin.status, 200, m[1]);
    const title = /<h1>([^<]+)<\/h1>/.exec(html)![1]!.replace(/&amp;/g, '&');
    assert.ok(twin.text.startsWith(`# ${title}\n`), `${m[1]} starts with its title`);
    assert.ok(!/<SourcePanel|<PartPicker|import /.test(twin.text), `${m[1]} holds no MDX`);
    if (route !== '/')
      assert.match(twin.text, /```(ts|rust|lua)\n/, `${m[1]} carries the source panels as code`);
    assert.match(
      twin.text,
      /## Pattern → implementation[\s\S]*## References[\s\S]*## Related in this course/,
    );
  }
});

test('llms-full.txt holds the whole course, every page in reading order', async () => {
  const { status, text } = await get('/llms-full.txt');
  assert.equal(status, 200);
  let at = -1;
  for (const route of COURSE_ROUTES) {
    const twin = await get(route === '/' ? '/index.md' : route.replace(/\/$/, '') + '.md');
    const i = text.indexOf(twin.text);
    assert.ok(i > at, `${route} appears in order`);
    at = i;
  }
});
