// Every fact of the seed that issue 4 lists appears on the page where it belongs — asserted on the
// rendered page's text, not on the MDX.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { COURSE_ROUTES, startSite, type Site } from '../../scripts/site.ts';
import { launchBrowser } from '../support/site.ts';

const MODULE = '/protocol/the-owned-keyspace/';
const GRAMMAR = MODULE + 'braced-grammar/';
const HASHTAG = MODULE + 'hashtag-and-slot/';
const RESERVE = MODULE + 'reserve/';

const FACTS: Record<string, string[]> = {
  '/': ['The owned keyspace', 'The braced grammar', 'The hashtag & the slot', 'The reserve'],
  [MODULE]: [
    'emq:{q}:<type>',
    'EchoMQ.Keyspace',
    'queue_key/2',
    'job_key/2',
    'Queue::from_key',
    'EVALSHA',
    'trafikey',
    'EMQ.*',
    'valid_queue!/1',
    'Jobs.enqueue/4',
    'Jobs.enqueue_many/4',
    'Lanes.enqueue/5',
    'before anything reaches the wire',
    '@claim2',
    'KEYS[3]',
    'one connection to one server and never routes by slot',
    'It serves standalone servers',
    'EMQWIRE expected a standalone server but cluster mode is enabled',
    'MOVED <slot> <host:port>',
    'Only the node that owns the slot calls the module',
    'CRC16-XMODEM',
    'modulo 16384',
    'slot("123456789")',
    '12739',
    '{emq}:',
    'slot 9051',
    'an empty queue name is no exception',
    'a wire 4 connector claims it',
    'an operator installs it',
    'Redis Patterns Applied, R2.05',
  ],
  [GRAMMAR]: [
    'emq:{orders}:pending',
    'queueKey(q, type)',
    'queue_key/2',
    'jobKey(q, id)',
    'queueKey(q, "job:")',
    'emq:{orders}:job:JOB0Nb1VTbfnu4',
    "EMQKIND expected an id of kind 'JOB' but found '<id>'",
    'validQueue',
    'valid_queue!/1',
    'Jobs.enqueue/4',
    'Jobs.enqueue_many/4',
    'Lanes.enqueue/5',
    'before any wire',
    'emq:{}:pending',
    'emq:{emq}:pending',
    'Queue::from_key',
    'byte for byte',
    "EMQKEY key <pos> differs at byte <offset>: expected '<expected>' but found '<found>'",
    "EMQKEY key 2 differs at byte 10: expected 'emq:{orders}:job:JOB0Nb1VTbfnu4' but found 'emq:{orderz}:job:JOB0Nb1VTbfnu4'",
    "EMQKEY key 1 has an empty queue name at byte 5: expected at least one byte between '{' and '}'",
    'key count, then layout, then server mode, then the wire identity',
    'own routing comes before all of them',
    'A refused call has written nothing',
  ],
  [HASHTAG]: [
    'foo{}{bar}',
    'foo{{bar}}zap',
    'foo{bar}{zap}',
    'CRC16',
    'XMODEM',
    '0x1021',
    'modulo 16384',
    'slot(key) = CRC16-XMODEM(hashtag(key)) mod 16384',
    'slot("123456789") == 12739',
    '0x31C3',
    'CLUSTER KEYSLOT',
    'ERR This instance has cluster support disabled',
    "CROSSSLOT Keys in request don't hash to the same slot",
    '@claim2',
    'KEYS[3] .. id',
    'remains single-slot on a cluster',
    'holds one connection to one server',
    'does not route by slot',
    'The native module serves standalone servers only.',
    'EMQWIRE expected a standalone server but cluster mode is enabled',
    'the server routes an EMQ.* call before the module is called',
    '0–5460, 5461–10922 and 10923–16383',
    'MOVED 105',
    'such as emq',
  ],
  [RESERVE]: [
    'reserve(suffix)',
    'versionKey()',
    '{emq}:version',
    'first-byte-disjoint',
    '(0x65)',
    '(0x7B)',
    'emq:{emq}:pending',
    'slot 9051',
    'belongs to none of them',
    'Disjoint keys are not disjoint slots',
    'the slot is merely shared',
    'echomq:MAJOR.MINOR.PATCH',
    'echomq:4.0.0',
    'echomq:6.0.0',
    'SET … NX',
    'installs it administratively',
    'it is only read',
    'by every native write verb',
    'whose fence reads but never claims',
    "EMQWIRE expected wire identity 'echomq:6.0.0' at '{emq}:version' but found none (not installed)",
    "EMQWIRE expected wire identity 'echomq:6.0.0' at '{emq}:version' but found '<value>'",
    "found 'echomq:4.0.0'",
    'The fence works per connection; the executor is chosen per call.',
  ],
};

const VECTORS: [string, string][] = [
  ['123456789', '12739'],
  ['emq:{orders}:pending', '105'],
  ['{fills}', '4165'],
  ['{emq}:version', '9051'],
  ['somekey', '11058'],
  ['foo{hash_tag}', '2515'],
  ['foo{}{bar}', '8363'],
  ['foo{{bar}}zap', '4015'],
  ['foo{bar}{zap}', '5061'],
];

const REFERENCES = [
  'https://valkey.io/docs/',
  'https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/#hash-tags',
  'https://valkey.io/topics/cluster-spec/',
  'https://valkey.io/topics/modules-intro/',
  'https://llmstxt.org/',
];

let site: Site;
let browser: Browser;
let page: Page;
before(async () => {
  site = await startSite();
  browser = await launchBrowser();
  page = await browser.newPage();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const text = async () =>
  (await page.locator('main').evaluate((m) => m.textContent ?? '')).replace(/\s+/g, ' ');

for (const [route, facts] of Object.entries(FACTS)) {
  test(`seed facts on ${route}`, async () => {
    await page.goto(site.url + route);
    const body = await text();
    const missing = facts.filter((f) => !body.includes(f));
    assert.deepEqual(missing, [], `missing on ${route}`);
  });
}

test('the slot vectors are on the hashtag dive, as table rows', async () => {
  await page.goto(site.url + HASHTAG);
  const rows = await page.$$eval('table tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())),
  );
  for (const [key, slot] of VECTORS) {
    assert.ok(
      rows.some((r) => r[0] === key && r[1] === slot),
      `row ${key} → ${slot}`,
    );
  }
});

test('every page ends with Pattern → implementation, References (the seed sources) and Related in this course', async () => {
  for (const route of COURSE_ROUTES) {
    await page.goto(site.url + route);
    const h2 = await page.$$eval('article.prose h2', (hs) => hs.map((h) => h.textContent!.trim()));
    assert.deepEqual(
      h2.slice(-3),
      ['Pattern → implementation', 'References', 'Related in this course'],
      route,
    );
    const refs = await page.$$eval('.references a', (as) => as.map((a) => (a as HTMLAnchorElement).href));
    assert.deepEqual(refs, REFERENCES, route);
    assert.ok((await page.locator('.related a').count()) >= 3, `${route} relates to other pages`);
  }
});

test('the module page and every dive reserve a marked slot for the live explorer, with a fixed height', async () => {
  for (const route of COURSE_ROUTES.slice(1)) {
    await page.goto(site.url + route);
    const slot = page.locator('[data-explorer-slot]');
    assert.equal(await slot.count(), 1, route);
    const height = (await slot.boundingBox())!.height;
    assert.ok(height >= 400, `${route}: the explorer slot reserves its space (${height}px)`);
  }
});
