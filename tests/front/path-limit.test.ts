// One path, one limit: every spelling of the server island's path and of /api/… draws on the same
// bucket as the plain one, at the burst and one past it. Before the front read each path once, the
// limiter matched the raw text and 800 of 800 re-spelled island requests went unlimited.
// Each spelling is a client of its own (a loopback address), so each starts with a full bucket.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useExplorer } from '../support/explorer.ts';
import { request } from 'node:http';
import { requestFrom } from '../support/from-address.ts';

const BURST = 3;
// A token comes back every 1,000 s: nothing refills while the test runs.
const explorer = useExplorer({ EXPLORER_BURST: String(BURST), EXPLORER_RATE: '0.001' });

let address = 10;
const nextAddress = () => `127.0.2.${(address += 1)}`;

interface Options {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A request whose target is sent byte for byte: a URL string would be read by the client first,
 * which resolves `/./` and `/x/../` before the server ever sees them.
 */
function rawFrom(localAddress: string, path: string, options: Options = {}): Promise<number> {
  const { hostname, port } = new URL(explorer.site.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path,
        localAddress,
        agent: false,
        method: options.method,
        headers: options.headers,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer for ${path} in 20 s`)));
    req.end(options.body);
  });
}

/** BURST requests answered, the next one refused 429: the statuses, in order. */
async function burstThenOne(path: string, options: Options = {}) {
  const from = nextAddress();
  const statuses: number[] = [];
  for (let i = 0; i <= BURST; i += 1) statuses.push(await rawFrom(from, path, options));
  return statuses;
}

const island = async () => {
  const html = (await requestFrom('127.0.2.2', `${explorer.site.url}/protocol/the-owned-keyspace/`)).body;
  const found = /\/_server-islands\/[^"]+/.exec(html.toString())?.[0]?.replaceAll('&amp;', '&');
  assert.ok(found, 'the module page has a server island');
  return found;
};

describe('every spelling of the server island is limited', () => {
  const respell: Array<[string, (path: string) => string]> = [
    ['as served', (p) => p],
    ['//', (p) => `/${p}`],
    ['%5F', (p) => p.replace('/_', '/%5F')],
    ['%5f', (p) => p.replace('/_', '/%5f')],
    ['%255F', (p) => p.replace('/_', '/%255F')],
    ['/./', (p) => `/.${p}`],
    ['/x/../', (p) => `/x/..${p}`],
    ['/x/%2e%2e/', (p) => `/x/%2e%2e${p}`],
    ['backslash', (p) => p.replace('/_', '/\\_')],
    ['// inside', (p) => p.replace('islands/', 'islands//')],
  ];
  for (const [name, spell] of respell) {
    it(`${name}: ${BURST} served, the ${BURST + 1}th 429`, async () => {
      const statuses = await burstThenOne(spell(await island()));
      assert.deepEqual(statuses, [...Array(BURST).fill(200), 429]);
    });
  }
});

describe('every spelling of /api/… is limited', () => {
  // GET of an experiment is its route's 405: counted on the runs' budget like any call that is not the
  // route's, so each spelling shows both that it reached the route and that it drew on the same bucket.
  for (const path of [
    '/api/experiments/keys',
    '//api/experiments/keys',
    '/api//experiments/keys',
    '/%61pi/experiments/keys',
    '/%2561pi/experiments/keys',
    '/./api/experiments/keys',
    '/x/../api/experiments/keys',
    '/api/x/../experiments/keys',
    '/api/experiments/keys/.',
  ]) {
    it(`GET ${path}: ${BURST} answered 405, the ${BURST + 1}th 429`, async () => {
      assert.deepEqual(await burstThenOne(path), [...Array(BURST).fill(405), 429]);
    });
  }

  it('POST /api/experiments/%6Beys runs keys, within the same limit', async () => {
    const options = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"queue":"orders"}',
    };
    assert.deepEqual(await burstThenOne('//api/./experiments/%6Beys', options), [200, 200, 200, 429]);
  });

  it('a path that cannot be read is refused 400', async () => {
    for (const path of ['/%E0%A4%A', '/%25252525' + '5Fserver-islands/x']) {
      assert.equal(await rawFrom(nextAddress(), path), 400, path);
    }
  });
});
