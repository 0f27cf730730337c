// The machine-readable map: /llms.txt per llmstxt.org, every link resolving in the built site, the
// committed top-level llms.txt current; /llms-full.txt with the arity table and the error codes; a
// markdown twin for every page, plain markdown linking twins, its explorer as curl calls that run;
// /favicon.ico for a browser that opens a twin.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COURSE_ROUTES, ROOT, startSite, type Site } from '../../scripts/site.ts';
import { sections, withUniqueAnchors } from '../../src/lib/twin.ts';

let site: Site;
before(async () => {
  site = await startSite();
});
after(async () => {
  await site?.close();
});

/** A path of the site, or a link as llms.txt writes it (absolute when SITE_URL is set). */
const get = async (path: string) => {
  const r = await fetch(new URL(path, site.url));
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
  const targets = [...text.matchAll(/\]\(([^)]+)\)/g)].map((m) => new URL(m[1]!, site.url).pathname);
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

test('llms-full.txt holds the whole course, every page in reading order, then the reference', async () => {
  const { status, text } = await get('/llms-full.txt');
  assert.equal(status, 200);
  const twins = [];
  for (const route of COURSE_ROUTES) {
    const twin = await get(route === '/' ? '/index.md' : route.replace(/\/$/, '') + '.md');
    twins.push({ title: /^# (.*)$/m.exec(twin.text)![1]!, text: twin.text });
  }
  const parts = text.split('\n---\n\n');
  assert.equal(parts.length, COURSE_ROUTES.length + 1);
  const reference = { title: 'Reference', text: parts.at(-1)! };
  // each twin whole, in order, its shared headings named for its page (withUniqueAnchors)
  assert.deepEqual(parts, withUniqueAnchors([...twins, reference]));
});

test('every anchor of llms-full.txt is unique, and every link to one lands on its own page’s heading', async () => {
  const { text } = await get('/llms-full.txt');
  const slugs = sections(text)
    .filter((s) => s.slug)
    .map((s) => s.slug);
  const twice = slugs.filter((slug, i) => slugs.indexOf(slug) !== i);
  assert.deepEqual(twice, [], 'no anchor twice');
  assert.ok(slugs.includes('live-explorer--the-hashtag--the-slot'), 'a page’s explorer named for its page');
  for (const part of text.split('\n---\n\n')) {
    const own = new Set(sections(part).map((s) => s.slug));
    for (const [, slug] of part.matchAll(/\]\(#([^)\s]+)\)/g))
      assert.ok(own.has(slug!), `#${slug} is a heading of its own page`);
  }
});

/** The twin's text outside fenced code, where no markup may be left. */
const prose = (markdown: string) => markdown.replace(/^([ \t]*)```[\s\S]*?^\1```/gm, '');

test('the twins are plain markdown: no component, no HTML, course links point at twins', async () => {
  for (const route of COURSE_ROUTES) {
    const path = route === '/' ? '/index.md' : route.replace(/\/$/, '') + '.md';
    const { text } = await get(path);
    const outside = prose(text).replace(/`[^`\n]*`/g, '');
    // a component, or an HTML element (a placeholder such as `<type>` in a description is text)
    const tag = /<\/?([A-Z]\w*|a|p|div|span|section|script|style|br|code|pre|strong|em|fieldset|input)[\s>/]/;
    assert.doesNotMatch(outside, tag, `${path} holds no tag`);
    assert.doesNotMatch(text, /data-explorer|<KeyStrip|<LiveExplorer|class=/, path);
    for (const [, href] of prose(text).matchAll(/\]\((\/[^)\s]*)\)/g)) {
      assert.match(href!, /\.(md|txt)(#[\w-]+)?$/, `${path} links ${href} as a twin`);
      const { status } = await get(href!.replace(/#.*$/, ''));
      assert.equal(status, 200, `${path} → ${href}`);
    }
  }
  const { text } = await get('/protocol/the-owned-keyspace.md');
  assert.match(text, /^`emq:\{q\}:<type>`$/m, 'the key strip is the key as code');
  assert.match(text, /\[Open the slot in the live explorer ↓\]\(#live-explorer\)/);
  assert.match(text, /^## Live explorer$/m);
});

test('each twin’s explorer is curl calls of the JSON API that run as written', async () => {
  const seen = new Set<string>();
  for (const route of COURSE_ROUTES.slice(1)) {
    const path = route.replace(/\/$/, '') + '.md';
    const { text } = await get(path);
    const calls = [
      ...text.matchAll(
        /curl -s \$SITE(\/api\/experiments\/[\w-]+) -H 'content-type: application\/json' -d '([^']*)'/g,
      ),
    ];
    assert.ok(calls.length >= 1, `${path} has its explorer's curl calls`);
    // a twin cannot know the address it is read at: its lines name it SITE, and say what to set
    assert.match(text, /Set `SITE` to the address of the site that served this file first/, path);
    assert.doesNotMatch(text, /curl -s http:\/\/localhost/, path);
    for (const [, api, body] of calls) {
      if (seen.has(api! + body)) continue;
      seen.add(api! + body);
      const r = await fetch(site.url + api, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const json = (await r.json()) as { experiment?: string; error?: unknown };
      assert.equal(r.status, 200, `${api} ${body}: ${JSON.stringify(json)}`);
      assert.equal(json.experiment, api!.split('/').pop());
    }
  }
  assert.deepEqual([...seen].map((s) => s.split(/[/{]/)[3]).sort(), [
    'keys',
    'layout',
    'reserve',
    'reshard',
    'route',
    'slot',
    'two-executors',
  ]);
});

test('llms-full.txt and the API catalogue carry the EMQ.* arity table and every error code', async () => {
  const { text } = await get('/llms-full.txt');
  assert.match(text, /^## The EMQ\.\* commands: arity$/m);
  assert.match(
    text,
    /^\| `EMQ\.RETRY` \| 5 \| `active`, `schedule`, `dead`, `job:<id>`, `metrics:failed` \| .* \| 12 \|/m,
  );
  assert.match(text, /^## Error codes$/m);
  const api = (await (await fetch(site.url + '/api/experiments')).json()) as {
    errors: { code: string; text: string }[];
    commands: { command: string }[];
  };
  assert.equal(api.commands.length, 7);
  for (const e of api.errors) assert.ok(text.includes(`\`${e.text.replace(/\|/g, '\\|')}\``), e.text);
  for (const code of ['EMQKEY', 'EMQWIRE', 'CROSSSLOT', 'NOSCRIPT', 'BRACE', 'BAD_INPUT', 'RATE_LIMITED'])
    assert.ok(
      api.errors.some((e) => e.code === code),
      code,
    );
});

test('/favicon.ico is served, an icon', async () => {
  const r = await fetch(site.url + '/favicon.ico');
  assert.equal(r.status, 200);
  const bytes = new Uint8Array(await r.arrayBuffer());
  assert.deepEqual([...bytes.slice(0, 4)], [0, 0, 1, 0], 'an ICO header');
});
