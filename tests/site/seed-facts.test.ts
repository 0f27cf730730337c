// Every fact of the seed that issue 4 lists appears on the page where it belongs — asserted on the
// rendered page's text, not on the MDX. And what issue 17 corrected stays corrected: a slot that moves is
// told as Valkey 8.0.1 answers (ASK only from the migrating owner; no queue's keys "move together"), the
// seed's related links are there and none points back at its own page, and the glossary's terms are
// defined on the home page and linked from the pages that use them. And issue 28's sentences, each
// checked on a real server (Valkey 8.0.1, a three-node cluster, Valkey 9.1.2) and corrected: the new
// words are on their page and the words a server contradicted are on none.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { COURSE_ROUTES, startSite, type Site } from '../../scripts/site.ts';
import { launchBrowser } from '../support/site.ts';
import { TRANSITIONS } from '../../server/contract/transitions.ts';

const MODULE = '/protocol/the-owned-keyspace/';
const GRAMMAR = MODULE + 'braced-grammar/';
const HASHTAG = MODULE + 'hashtag-and-slot/';
const RESERVE = MODULE + 'reserve/';

const FACTS: Record<string, string[]> = {
  '/': [
    'The owned keyspace',
    'The braced grammar',
    'The hashtag & the slot',
    'The reserve',
    'Runs on the cluster share its one keyspace, so they take turns per slot',
    'TRYAGAIN Multiple keys request during rehashing of slot',
  ],
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
    'MOVED',
    'A call reaches the module only on a node that serves its slot',
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
    'One transition runs on the scripted executor only: lane enqueue',
    'a claim waits: it meets TRYAGAIN until the migration ends',
  ],
  [GRAMMAR]: [
    'emq:{orders}:pending',
    'queueKey(q, type)',
    'jobKey(q, id)',
    'queueKey(q, "job:")',
    'emq:{orders}:job:JOB0Nb1VTbfnu4',
    "EMQKIND expected an id of kind 'JOB' but found '<id>'",
    'validQueue',
    'before any wire',
    'emq:{}:pending',
    'emq:{emq}:pending',
    'Queue::from_key',
    'byte for byte',
    "EMQKEY key <pos> differs at byte <offset>: expected '<expected>' but found '<found>'",
    "EMQKEY key 2 differs at byte 10: expected 'emq:{orders}:job:JOB0Nb1VTbfnu4' but found 'emq:{orderz}:job:JOB0Nb1VTbfnu4'",
    "EMQKEY key 1 has an empty queue name at byte 5: expected at least one byte between '{' and '}'",
    'key count, then layout, then server mode, then the wire identity',
    'own answers come before all of them',
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
    'the identity key is on another slot',
    'CLUSTER SETSLOT <slot> NODE <target-id>',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'ASK comes only from the migrating owner, the source',
    'the row base is never a key',
    'retryDelayOnTryAgain',
    'maxRedirections',
    'Too many Cluster redirections. Last error: …',
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

// The page's text as read: an inline definition's line (.term-def, shown only when opened) left out.
const text = async () =>
  (
    await page.locator('main').evaluate((m) => {
      const copy = m.cloneNode(true) as HTMLElement;
      for (const def of copy.querySelectorAll('.term-def')) def.remove();
      return copy.textContent ?? '';
    })
  ).replace(/\s+/g, ' ');

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

// ------------------------------------------------------------------ issue 17: a slot that moves, words

/** The seed's "Related in this course", in its order. */
const SEED_RELATED = [
  'The Protocol',
  'The braced grammar',
  'The hashtag & the slot',
  'The reserve',
  'The native module',
  'redis-patterns R2.05 · Hash-tag co-location',
];

/** Each glossary term (its id after `glossary-`) and the pages that must link it where it is used. */
const GLOSSARY: Record<string, string[]> = {
  slot: [MODULE, GRAMMAR, HASHTAG, RESERVE],
  hashtag: [MODULE, GRAMMAR, HASHTAG, RESERVE],
  crossslot: [MODULE, GRAMMAR, HASHTAG],
  moved: [MODULE, GRAMMAR, HASHTAG],
  ask: [MODULE, GRAMMAR, HASHTAG],
  tryagain: [MODULE, GRAMMAR, HASHTAG],
  trafikey: [MODULE, GRAMMAR, HASHTAG],
  claim2: [MODULE, HASHTAG],
  'admission-verbs': [MODULE, GRAMMAR],
  'wire-4-wire-6': [MODULE, RESERVE],
  'wire-identity': [MODULE, RESERVE],
  executor: [MODULE],
  connector: [RESERVE],
  crc16: [MODULE, HASHTAG],
  emqkey: [GRAMMAR],
  emqwire: [],
};

/** The reader-facing texts of the built site: each page's main text, its twin, and the two llms files. */
async function readerTexts(): Promise<[string, string][]> {
  const texts: [string, string][] = [];
  for (const route of COURSE_ROUTES) {
    await page.goto(site.url + route);
    texts.push([route, await text()]);
  }
  for (const path of ['/llms.txt', '/llms-full.txt']) {
    const response = await fetch(site.url + path);
    assert.equal(response.status, 200, path);
    texts.push([path, await response.text()]);
  }
  return texts;
}

test('no page says a queue’s keys move together, or that the module refuses rather than fail halfway', async () => {
  for (const [where, body] of await readerTexts()) {
    assert.doesNotMatch(body, /\bmov(e|es|ed|ing)\b[^.]{0,40}\btogether\b/i, where);
    assert.doesNotMatch(body, /fail(s|ing)? halfway/i, where);
  }
});

test('ASK is only ever the migrating owner’s answer, never a non-owner’s', async () => {
  const attributed: string[] = [];
  for (const [where, body] of await readerTexts()) {
    // A clause that names a node that does not own or serve the slot and then ASK gives ASK to it.
    for (const clause of body.split(/[.;,:(]\s/)) {
      if (/(not own|not serve|non-owner)[^]*\bASK\b/.test(clause)) attributed.push(`${where}: ${clause}`);
    }
  }
  assert.deepEqual(attributed, []);
  await page.goto(site.url + HASHTAG);
  const rows = await page.$$eval('table tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())),
  );
  const row = (call: string) => rows.find((r) => r[0] === call);
  assert.deepEqual(row('one key, already moved'), [
    'one key, already moved',
    'ASK 105 <target>',
    'served after ASKING',
  ]);
  assert.deepEqual(row('one key, still on the source'), [
    'one key, still on the source',
    'served',
    'MOVED to the source (without ASKING)',
  ]);
  assert.equal(
    row('several keys, some present, some missing')?.[1],
    'TRYAGAIN Multiple keys request during rehashing of slot',
  );
});

test('the hashtag dive gives the check order on a cluster as a numbered list, routing first', async () => {
  await page.goto(site.url + HASHTAG);
  const steps = await page.$$eval('article.prose ol', (ols) =>
    ols.map((ol) =>
      [...ol.querySelectorAll(':scope > li')].map((li) => li.textContent!.trim().split('.')[0]),
    ),
  );
  assert.ok(
    steps.some((s) => s.join(' → ') === 'Server routing → Key count → Layout → Server mode'),
    JSON.stringify(steps),
  );
  const body = await text();
  assert.ok(body.includes('key count → layout → server mode → wire identity'), 'and the standalone order');
});

test('the module page ends with the seed’s related links, and no related link points back at its own page', async () => {
  await page.goto(site.url + MODULE);
  const titles = await page.$$eval('.related a', (as) => as.map((a) => a.textContent!.trim()));
  assert.deepEqual(titles, SEED_RELATED);
  for (const route of COURSE_ROUTES) {
    await page.goto(site.url + route);
    const hrefs = await page.$$eval('.related a', (as) => as.map((a) => (a as HTMLAnchorElement).href));
    for (const href of hrefs) {
      assert.notEqual(
        new URL(href).pathname,
        new URL(site.url + route).pathname,
        `${route} relates to itself: ${href}`,
      );
    }
    const native = await page.$$eval('.related a', (as) =>
      as
        .filter((a) => a.textContent!.trim() === 'The native module')
        .map((a) => (a as HTMLAnchorElement).href),
    );
    for (const href of native)
      assert.match(href, /#(the-server-rebuilds-every-key|one-keyspace-two-executors)$/, route);
  }
});

test('the glossary defines every term on the home page, and each page links the terms it uses', async () => {
  await page.goto(site.url + '/');
  const defined = await page.$$eval('dfn[id^="glossary-"]', (ds) =>
    ds.map((d) => d.id.slice('glossary-'.length)),
  );
  assert.deepEqual([...defined].sort(), Object.keys(GLOSSARY).sort());
  const wanted = new Set(['@claim2', 'trafikey', 'TRYAGAIN', 'CROSSSLOT', 'ASK', 'MOVED', 'Wire 4, wire 6']);
  const names = await page.$$eval('dfn[id^="glossary-"]', (ds) => ds.map((d) => d.textContent!.trim()));
  for (const name of wanted) assert.ok(names.includes(name), `the glossary defines ${name}`);
  for (const route of COURSE_ROUTES.slice(1)) {
    await page.goto(site.url + route);
    const linked = await page.$$eval('main a[href*="#glossary-"]', (as) =>
      as.map((a) => new URL((a as HTMLAnchorElement).href).hash.slice('#glossary-'.length)),
    );
    for (const id of linked) assert.ok(id in GLOSSARY, `${route} links a term the glossary defines: ${id}`);
    const missing = Object.entries(GLOSSARY)
      .filter(([id, pages]) => pages.includes(route) && !linked.includes(id))
      .map(([id]) => id);
    assert.deepEqual(missing, [], `${route} links these terms`);
  }
});

test('the code panels show the check the module runs: Queue::from_key, and a Layout::check short enough to read', async () => {
  for (const route of [MODULE, GRAMMAR]) {
    await page.goto(site.url + route);
    const panel = page.locator('figure[data-source-symbol="Queue::from_key"]');
    assert.equal(await panel.count(), 1, `${route} shows Queue::from_key`);
    assert.equal(await panel.getAttribute('data-source-file'), 'native-module/src/keyspace.rs');
    assert.match((await panel.getAttribute('data-source-lines')) ?? '', /^\d+-\d+$/);
  }
  await page.goto(site.url + GRAMMAR);
  const lines = await page
    .locator('figure[data-source-symbol="Layout::check"]')
    .getAttribute('data-source-lines');
  const [start, end] = lines!.split('-').map(Number) as [number, number];
  assert.ok(end - start + 1 <= 25, `Layout::check is the check itself (${end - start + 1} lines)`);
});

// ------------------------------------------------------------------ issue 28: what a real server answers

/** Where a corrected sentence lives: a page, or anywhere in the course (the glossary may move). */
type Where = string | 'course';

interface Correction {
  where: Where;
  /** The corrected words, on that page. */
  says: string[];
  /** The words a real server contradicted, on no page, twin or llms file. */
  never: string[];
}

const CORRECTIONS: Record<string, Correction[]> = {
  // 8.0.1, three nodes, slot 105: ASKING + EMQ.COMPLETE on the target after its keys moved → EMQWIRE
  W1: [
    {
      where: MODULE,
      says: [
        'A call reaches the module only on a node that serves its slot: the owner, or, while the slot migrates, the target after ASKING once every key of the call is there.',
      ],
      never: ['Only the node that owns the slot calls the module'],
    },
    {
      where: GRAMMAR,
      says: [
        'module is called only on a node that serves the slot (the owner, or mid-migration the target after ASKING)',
      ],
      never: ['is called only on the owning node'],
    },
    {
      where: HASHTAG,
      says: [
        'that refusal comes only from a node that serves the slot: its owner, or, while the slot migrates, the target after ASKING',
        'a call whose keys have all arrived on the target is served there after ASKING, and the module there answers EMQWIRE',
        // the "MOVED or EMQWIRE" exercise's explanation
        'The module runs only where the slot is served (on its owner, or while the slot migrates on the target after ASKING), and there it answers EMQWIRE.',
      ],
      never: [
        'only ever heard from one node',
        'only the owner calls the module',
        'runs only on the node that owns the slot',
      ],
    },
  ],
  // 9.1.2 standalone: CLUSTER KEYSLOT 123456789 → 12739; 8.0.1 standalone: ERR … cluster support disabled
  I1: [
    {
      where: HASHTAG,
      says: [
        'A cluster node answers it, and so does a standalone Valkey 9.1 (CLUSTER KEYSLOT 123456789 gives 12739); a standalone Valkey 8.0 answers ERR This instance has cluster support disabled',
      ],
      never: ['but only on a cluster-enabled node'],
    },
  ],
  // 9.1.2, only the target's module opted out: MIGRATESLOTS → OK, then state failed at the handshake
  I2: [
    {
      where: HASHTAG,
      says: [
        'When a module on the source has not declared it, MIGRATESLOTS answers ERR The module <name> does not support atomic slot migrations.',
        'When only one on the target has not, MIGRATESLOTS answers OK and the job fails at the handshake',
        'state failed with Received error during handshake to target: -ERR The module <name> does not support …',
      ],
      never: ['Without it, MIGRATESLOTS answers'],
    },
  ],
  // 9.1.2: reading-auth-response → waiting-to-snapshot → snapshotting → replicating → failover-granted → success
  I3: [
    {
      where: HASHTAG,
      says: [
        '(connecting, sending-auth-command, reading-auth-response, sending-establish-command, reading-establish-response), then waiting-to-snapshot, snapshotting, replicating, waiting-to-pause, failover-paused, failover-granted and success',
      ],
      never: ['on the source snapshotting, replicating, failover-paused, failover-granted, then success'],
    },
  ],
  // iovalkey 0.4 defaults, three nodes: the last error was TRYAGAIN, MOVED or ASK, run by run
  I4: [
    {
      where: HASHTAG,
      says: [
        'primary picked at random: the source again, the target, or a node that answers MOVED',
        'whichever answer came last: TRYAGAIN, MOVED or ASK',
      ],
      never: ['to any primary, which redirects it', 'Last error: ReplyError: TRYAGAIN'],
    },
  ],
  // measured: 0.99–1.46 s with keys split or unmoved, 0.63–0.66 s once all had moved
  I5: [
    {
      where: HASHTAG,
      says: [
        'How soon it gives up depends on the phase',
        "1.0–1.5 s while the source still held some of the claim's keys, and 0.6–0.7 s once all had moved",
      ],
      never: ['gave up after about 0.8 s'],
    },
  ],
  I6: [
    {
      where: HASHTAG,
      says: ["the explorer's key by key run allows its claim 1000"],
      never: ["the sandbox's client allows 64"],
    },
  ],
  // 8.0.1: complete with its row moved → TRYAGAIN; the target without ASKING and the third node → MOVED
  I7: [
    {
      where: HASHTAG,
      says: [
        'MOVED from the target without ASKING and from every other node, ASK, and TRYAGAIN for any call whose keys are split or not yet written',
        'a new enqueue or schedule, a complete or retry mid-batch',
      ],
      never: ['TRYAGAIN for claim, promote, reap and a new enqueue'],
    },
  ],
  // 9.1.2, every module opted in: SETSLOT IMPORTING/MIGRATING and MIGRATE → OK, then ASK and TRYAGAIN
  I8: [
    {
      where: HASHTAG,
      says: ['on 9.0 and later, whenever an operator or a tool sends SETSLOT and MIGRATE'],
      never: ['on 9.0 and later, whenever a loaded module has not opted in'],
    },
  ],
  I9: [
    {
      where: HASHTAG,
      says: [
        'The claim also reads meta, a key it does not declare; it derives that key from its declared row base',
      ],
      never: ['it only if they share a slot. A script that names'],
    },
  ],
  I10: [
    {
      where: GRAMMAR,
      says: [
        'no other file in the project spells a key out',
        "claim-3.lua and trafikey's lease.rs take meta from the row base, move-due.lua appends an id to it",
      ],
      never: ['assembles a key by hand'],
    },
  ],
  I11: [{ where: 'course', says: ['Here schedule runs the same check too.'], never: [] }],
  I12: [
    {
      where: GRAMMAR,
      says: ['jobKey calls assertBrandedId, which throws the reason problemWith finds'],
      never: ['The well-formedness check jobKey relies on'],
    },
  ],
  // CLUSTER KEYSLOT foo{}{bar} → 8363: empty braces hash the whole key
  I13: [
    {
      where: 'course',
      says: [
        'when at least one byte lies between them; otherwise the whole key (foo{}{bar} is hashed whole)',
      ],
      never: ['when there is at least one; otherwise the whole key'],
    },
    { where: MODULE, says: ['}, when at least one byte lies between them'], never: [] },
  ],
  // EMQ.COMPLETE 3 emq:{}:active … → EMQKEY key 1 has an empty queue name at byte 5
  I14: [
    {
      where: GRAMMAR,
      says: ['Queue::from_key yields no name from emq:{}:active: it answers EmptyName'],
      never: ['but the name it yields has no bytes'],
    },
  ],
  // ZCARD of a key that never existed, on the migrating source → ASK 105 …
  I15: [
    {
      where: 'course',
      says: ['for keys it no longer holds or never held'],
      never: ['for keys it no longer holds.'],
    },
  ],
  // EMQ.CLAIM 2 … → EMQKEY EMQ.CLAIM expects 3 keys but found 2
  I16: [
    {
      where: GRAMMAR,
      says: ['EMQKEY has three forms', 'EMQKEY EMQ.CLAIM expects 3 keys but found 2'],
      never: ['The message has one fixed form'],
    },
  ],
  I17: [
    {
      where: '/',
      says: ["(Valkey 9.1 for the reshard's atomic mode)"],
      never: ['run on a sandbox Valkey 8 while you read'],
    },
  ],
  // 8.0.1, three nodes: GET {emq}:version on node 1 → MOVED 9051 …
  N1: [
    {
      where: HASHTAG,
      says: [
        'its fence then works only on the node that owns slot 9051: any other answers its GET {emq}:version with MOVED 9051 <owner>',
      ],
      never: [],
    },
  ],
};

/** A text as the phrases spell it: one space for any run of white space, straight quotes. */
const plain = (body: string) => body.replace(/\s+/g, ' ').replace(/[‘’]/g, "'");

/** Every course page's main text, by route (read once). */
let pages: Map<string, string> | undefined;
async function pageTexts(): Promise<Map<string, string>> {
  if (pages) return pages;
  pages = new Map();
  for (const route of COURSE_ROUTES) {
    await page.goto(site.url + route);
    pages.set(route, await text());
  }
  return pages;
}

for (const [item, corrections] of Object.entries(CORRECTIONS)) {
  test(`issue 28 ${item}: the corrected sentence is said, the contradicted one nowhere`, async () => {
    const texts = await pageTexts();
    for (const { where, says } of corrections) {
      const found = where === 'course' ? [...texts.values()].join(' ') : texts.get(where);
      assert.ok(found !== undefined, `${where} is a course page`);
      const body = plain(found);
      const missing = says.filter((phrase) => !body.includes(phrase));
      assert.deepEqual(missing, [], `${item} on ${where}`);
    }
    const everywhere = await readerTexts();
    for (const { never } of corrections) {
      for (const phrase of never) {
        const saying = everywhere.filter(([, body]) => plain(body.replace(/[`*]/g, '')).includes(phrase));
        assert.deepEqual(
          saying.map(([path]) => path),
          [],
          `${item}: "${phrase}"`,
        );
      }
    }
  });
}

test('issue 28: what the sentences name is what the code does', () => {
  const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  // I6: the key by key run's claim client
  assert.match(read('server/experiments/migration/keys-mode.ts'), /maxRedirections: 1000\b/);
  // I9, I10: meta derived from the declared base, by the script and the module; move-due appends an id
  assert.match(read('server/executors/lua/claim-3.lua'), /string\.sub\(row_base, 1, -5\) \.\. "meta"/);
  assert.match(
    read('native-module/src/commands/lease.rs'),
    /Owned::concat\(ctx, &base\[\.\.base\.len\(\) - ROW_TYPE\.len\(\)\], b"meta"\)/,
  );
  assert.match(read('server/executors/lua/includes/move-due.lua'), /row_base \.\. id/);
  // I11: schedule runs the admission check
  assert.equal(TRANSITIONS.schedule.admits, true);
  // I12: jobKey checks through assertBrandedId, whose reasons are problemWith's
  assert.match(read('server/contract/keyspace/grammar.ts'), /assertBrandedId\(id, 'job id'\)/);
  assert.match(read('server/contract/keyspace/branded-id.ts'), /const problem = problemWith\(id\)/);
  // N1: the one-keyspace sentences say which Valkey they hold for; I1: the console's comment
  assert.match(read('docs/api.md'), /only with `cluster-databases 1`, the default/);
  assert.doesNotMatch(read('docs/api.md'), /A cluster node's one keyspace is/);
  assert.match(read('server/explorer/cluster-run.ts'), /cluster-databases is raised above its default of 1/);
  assert.doesNotMatch(
    read('server/experiments/console/console.ts'),
    /CLUSTER KEYSLOT needs a cluster-enabled node/,
  );
});

test('issue 28 polish: words beside code keep their spaces, and the Two ways table names every column', async () => {
  for (const route of COURSE_ROUTES) {
    const body = (await pageTexts()).get(route)!;
    assert.doesNotMatch(body, /sevenEMQ|PING,ECHO/, route);
    assert.ok(body.includes('the seven EMQ.* verbs') && body.includes('PING, ECHO, TIME'), route);
  }
  await page.goto(site.url + HASHTAG);
  const headers = await page
    .locator('#two-ways-a-slot-moves ~ table')
    .first()
    .locator('th')
    .allTextContents();
  assert.deepEqual(headers, ['what differs', 'key by key', 'atomic']);
});
