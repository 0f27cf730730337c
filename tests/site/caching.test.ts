// What a browser and a cache may keep: Astro's hashed assets (`/_astro/*`) for a year, immutable, so a
// reader's second visit in Chromium asks the site for none of them (counted from the site's own access
// log); pages and their markdown twins revalidated by ETag (the second visit's page is a 304); the
// catalogue made once, with an ETag per encoding; and the encoding chosen by the reader's q-values.

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { CLIENT } from '../../scripts/site.ts';
import { requestFrom } from '../support/from-address.ts';
import { useCourse } from '../support/site.ts';

const course = useCourse();
const GRAMMAR = '/protocol/the-owned-keyspace/braced-grammar/';

/** The site's access log so far: one JSON line per request on its standard output. */
function accessLog(): Array<{ method: string; path: string; status: number }> {
  return course.site
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{"time"'))
    .map((line) => JSON.parse(line))
    .filter((entry) => typeof entry.method === 'string');
}

const get = (path: string, headers: Record<string, string> = {}) =>
  requestFrom('127.0.4.1', course.site.url + path, { headers });

describe('caching', () => {
  it('hashed assets are kept a year, immutable, on GET and HEAD; pages and twins are revalidated', async () => {
    const asset = readdirSync(join(CLIENT, '_astro')).find((name) => name.endsWith('.js'))!;
    for (const method of ['GET', 'HEAD']) {
      const answer = await requestFrom('127.0.4.1', `${course.site.url}/_astro/${asset}`, { method });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['cache-control'], 'public, max-age=31536000, immutable', method);
    }
    for (const path of ['/', GRAMMAR, '/index.md', '/llms.txt']) {
      const first = await get(path, { 'accept-encoding': 'br' });
      assert.equal(first.status, 200, path);
      assert.equal(first.headers['cache-control'], 'public, no-cache', path);
      const etag = String(first.headers.etag);
      assert.ok(etag.length > 2, `${path} has an ETag`);
      const again = await get(path, { 'accept-encoding': 'br', 'if-none-match': etag });
      assert.equal(again.status, 304, `${path} revalidated`);
      assert.equal(again.body.length, 0);
    }
  });

  it('the catalogue is made once, with an ETag per encoding, and a 304 for the one a reader holds', async () => {
    const plain = await get('/api/experiments');
    const br = await get('/api/experiments', { 'accept-encoding': 'br' });
    const gzip = await get('/api/experiments', { 'accept-encoding': 'gzip' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.equal(brotliDecompressSync(br.body).toString(), plain.body.toString());
    assert.equal(gunzipSync(gzip.body).toString(), plain.body.toString());
    const etags = [plain, br, gzip].map((a) => String(a.headers.etag));
    assert.equal(new Set(etags).size, 3, `one ETag per encoding: ${etags.join(' ')}`);
    for (const answer of [plain, br, gzip]) {
      assert.equal(answer.headers['cache-control'], 'no-cache');
      assert.match(String(answer.headers.vary), /accept-encoding/i);
    }
    const held = await get('/api/experiments', { 'accept-encoding': 'br', 'if-none-match': etags[1]! });
    assert.equal(held.status, 304);
    const other = await get('/api/experiments', { 'accept-encoding': 'gzip', 'if-none-match': etags[1]! });
    assert.equal(other.status, 200, 'a brotli ETag does not stand for the gzip bytes');
  });

  it('the encoding follows the reader’s q-values', async () => {
    for (const path of ['/', '/api/experiments']) {
      const preferGzip = await get(path, { 'accept-encoding': 'gzip;q=1, br;q=0.1' });
      assert.equal(preferGzip.headers['content-encoding'], 'gzip', path);
      const preferBr = await get(path, { 'accept-encoding': 'gzip;q=0.5, br' });
      assert.equal(preferBr.headers['content-encoding'], 'br', path);
      const neither = await get(path, { 'accept-encoding': 'br;q=0, gzip;q=0' });
      assert.equal(neither.headers['content-encoding'], undefined, path);
    }
  });

  it('in Chromium, a second visit fetches no hashed asset, and its page is a 304', async (t) => {
    const context = await course.browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const first = await context.newPage();
      const before = accessLog().length;
      await first.goto(course.site.url + GRAMMAR, { waitUntil: 'load' });
      await first.waitForLoadState('networkidle');
      const firstVisit = accessLog().slice(before);
      const assets = firstVisit.filter((entry) => entry.path.startsWith('/_astro/'));
      assert.ok(assets.length > 0, 'the first visit fetches the hashed assets');
      await first.close();

      const second = await context.newPage();
      const between = accessLog().length;
      await second.goto(course.site.url + GRAMMAR, { waitUntil: 'load' });
      await second.waitForLoadState('networkidle');
      const secondVisit = accessLog().slice(between);
      t.diagnostic(
        `first visit: ${firstVisit.length} requests (${assets.length} hashed assets); second: ${secondVisit
          .map((e) => `${e.path} ${e.status}`)
          .join(', ')}`,
      );
      assert.deepEqual(
        secondVisit.filter((entry) => entry.path.startsWith('/_astro/')).map((e) => e.path),
        [],
        'no hashed asset asked again',
      );
      const page = secondVisit.find((entry) => entry.path === GRAMMAR);
      assert.equal(page?.status, 304, 'the page revalidated by its ETag');
    } finally {
      await context.close();
    }
  });
});
