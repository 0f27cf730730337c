// The headers of a public site on every kind of answer: a page, a static file, a twin, llms.txt, the
// API's JSON, a 404, a 405, the front's refusals (a bad path, the rate limit, the image endpoint) and
// the bare 400 of a request Node cannot parse; and each page's every inline script allowed by the
// policy's hashes, read from the page as served (tests/site/csp.test.ts runs the pages in Chromium).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { COURSE_ROUTES, startSite, type Site } from '../../scripts/site.ts';
import { requestFrom, type Answer } from '../support/from-address.ts';
import { boundedTeardown } from '../support/teardown.ts';

let site: Site;
before(async () => {
  site = await startSite({ EXPLORER_BURST: '1', EXPLORER_RATE: '0.01' });
});
after(() => boundedTeardown(async () => site?.close()));

// An address of its own for each request: the rate limit (a burst of one here) is the 429's test alone.
let next = 0;
const get = (path: string, options: Parameters<typeof requestFrom>[2] = {}) =>
  requestFrom(`127.0.6.${(next += 1)}`, `${site.url}${path}`, options);

/** The policy's directives by name. */
function directives(answer: Answer): Map<string, string[]> {
  const policy = String(answer.headers['content-security-policy'] ?? '');
  return new Map(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

function assertSiteHeaders(answer: Answer, what: string): void {
  assert.equal(answer.headers['x-frame-options'], 'DENY', `${what}: x-frame-options`);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`);
  assert.equal(answer.headers['referrer-policy'], 'strict-origin-when-cross-origin', `${what}: referrer`);
  const csp = directives(answer);
  assert.deepEqual(csp.get('frame-ancestors'), ["'none'"], `${what}: frame-ancestors`);
  assert.deepEqual(csp.get('object-src'), ["'none'"], `${what}: object-src`);
  assert.deepEqual(csp.get('base-uri'), ["'self'"], `${what}: base-uri`);
  assert.deepEqual(csp.get('connect-src'), ["'self'"], `${what}: connect-src`);
  const scripts = csp.get('script-src') ?? [];
  assert.equal(scripts[0], "'self'", `${what}: scripts from the site`);
  for (const source of scripts.slice(1))
    assert.match(source, /^'sha256-[A-Za-z0-9+/]+={0,2}'$/, `${what}: only hashes beside 'self'`);
  assert.ok(!csp.get('default-src')?.includes('*'), `${what}: no wildcard`);
}

describe('every kind of answer carries the headers of a public site', () => {
  for (const [what, path, options, status] of [
    ['the home page', '/', {}, 200],
    [
      'a course page, compressed',
      '/protocol/the-owned-keyspace/',
      { headers: { 'accept-encoding': 'br' } },
      200,
    ],
    ['a static file', '/favicon.svg', {}, 200],
    ['a twin', '/index.md', {}, 200],
    ['llms.txt', '/llms.txt', {}, 200],
    ['the API’s JSON', '/api/sandbox', {}, 200],
    ['a page that is not there', '/no-such-page/', {}, 404],
    ['an API path that is not there', '/api/no-such-route', {}, 404],
    ['an API route asked the wrong method', '/api/sandbox', { method: 'DELETE' }, 405],
    ['a method the site never takes', '/', { method: 'TRACE' }, 405],
    ['a path with a broken escape', '/a/%E0%A4%A', {}, 400],
    ['the image endpoint', '/_image?href=x', {}, 404],
  ] as const) {
    it(`${what}: ${status}`, async () => {
      const answer = await get(path, options);
      assert.equal(answer.status, status);
      assertSiteHeaders(answer, what);
    });
  }

  it('a refused content type, then the rate limit past the burst: 415, then 429', async () => {
    const post = { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' };
    const refused = await requestFrom('127.0.7.1', `${site.url}/api/experiments/keys`, post);
    assert.equal(refused.status, 415);
    assertSiteHeaders(refused, 'a 415');
    const limited = await requestFrom('127.0.7.1', `${site.url}/api/experiments/keys`, post);
    assert.equal(limited.status, 429);
    assertSiteHeaders(limited, 'a 429');
  });

  it('the bare 400 of a request line Node cannot parse', async () => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(site.url).port) });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('NOT A REQUEST\r\n\r\n');
    await new Promise((resolve) => socket.once('close', resolve));
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.match(answer, /\r\nx-frame-options: DENY\r\n/i);
    assert.match(answer, /\r\nx-content-type-options: nosniff\r\n/i);
    assert.match(answer, /\r\ncontent-security-policy: [^\r]*frame-ancestors 'none'/i);
  });
});

describe('the policy allows each page’s inline scripts by hash, and nothing else inline', () => {
  for (const route of [...COURSE_ROUTES, '/no-such-page/']) {
    it(route, async () => {
      const page = await get(route);
      const allowed = new Set(directives(page).get('script-src'));
      const html = page.body.toString('utf8');
      let inline = 0;
      for (const [, attributes = '', body = ''] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
        if (/\ssrc=/.test(attributes)) continue;
        inline += 1;
        const hash = `'sha256-${createHash('sha256').update(body).digest('base64')}'`;
        assert.ok(
          allowed.has(hash),
          `an inline script of ${route} is not in the policy: ${body.slice(0, 80)}`,
        );
      }
      assert.ok(inline > 0, `${route} has its theme script inline`);
      assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'no inline event handler (a hash cannot allow one)');
      assert.doesNotMatch(html, /(href|src|action)\s*=\s*["']?\s*javascript:/i, 'no javascript: URL');
    });
  }
});
