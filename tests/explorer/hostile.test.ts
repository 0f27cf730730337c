// 10,000+ generated hostile requests against the JSON API: oversized, malformed JSON, wrong types, NUL
// and invalid UTF-8, braces everywhere, unknown experiments. No 5xx; every refusal a JSON error with a
// code and a message; afterwards no key outside the grammar and no run's keyspace left behind.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useExplorer } from '../support/explorer.ts';
import { seededRandom } from '../../server/seeded-random.ts';

// A generous rate limit: this test is about input, not about the limiter (tested on its own).
const explorer = useExplorer({ EXPLORER_BURST: '1000000', EXPLORER_RATE: '1000000' });
const REQUESTS = 10_000;
const CONCURRENCY = 16;

// reshard takes route's input plus a mode (tested in reshard.test.ts) but moves a slot, one at a time
// across the whole site: thousands of them queued behind each other would test the queue, not the input.
const NAMES = ['keys', 'slot', 'layout', 'route', 'reserve', 'two-executors', 'console'];
const FIELDS = [
  'queue',
  'id',
  'key',
  'other',
  'verb',
  'keys',
  'steps',
  'payload',
  'lines',
  '__proto__',
  'constructor',
];

interface Hostile {
  name: string;
  contentType: string;
  body: Uint8Array<ArrayBuffer> | string;
}

function generate(next: () => number): Hostile {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const braces = () =>
    Array.from({ length: Math.floor(next() * 12) }, () =>
      pick(['{', '}', '{}', 'a', '\u0000', 'é', ':', 'emq:']),
    ).join('');
  const value = (): unknown =>
    pick([
      () => braces(),
      () => 'x'.repeat(Math.floor(next() * 600)),
      () => Math.floor(next() * 1e9) - 5e8,
      () => null,
      () => true,
      () => [braces(), braces()],
      () => ({ nested: braces() }),
      () =>
        Array.from({ length: Math.floor(next() * 40) }, () => pick(['enqueue', 'claim', 'stale', 'nope'])),
      () => 'JOB0Nb1VTbfnu4',
      () => 'USRzzzzzzzzzzz',
      () => '\uD800lone',
    ])();
  const body = () =>
    Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, () => [pick(FIELDS), value()]));
  const name =
    next() < 0.1 ? pick(['', 'KEYS', 'eval', '..%2F..%2Fetc', 'keys%00', 'flushall']) : pick(NAMES);
  const kind = next();
  if (kind < 0.05)
    return { name, contentType: 'application/json', body: 'x'.repeat(5000 + Math.floor(next() * 50_000)) };
  if (kind < 0.15)
    return {
      name,
      contentType: 'application/json',
      body: pick(['{', '{"queue":', '[1,', 'nul', '{"a":1}}', '"\\ud800"']),
    };
  if (kind < 0.22) {
    return {
      name,
      contentType: 'application/json',
      body: new Uint8Array([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]),
    };
  }
  if (kind < 0.27)
    return {
      name,
      contentType: pick(['text/plain', 'application/x-www-form-urlencoded', '']),
      body: '{"queue":"orders"}',
    };
  if (kind < 0.32)
    return { name, contentType: 'application/json', body: JSON.stringify(pick([[], 'str', 42, null, true])) };
  return { name, contentType: 'application/json', body: JSON.stringify(body()) };
}

describe('hostile input', () => {
  it(`${REQUESTS} generated requests: no 5xx, every refusal a clear JSON error`, async () => {
    const next = seededRandom(Number(process.env.HOSTILE_SEED ?? 424242));
    const requests = Array.from({ length: REQUESTS }, () => generate(next));
    const statuses = new Map<number, number>();
    let cursor = 0;
    const worker = async () => {
      while (cursor < requests.length) {
        const request = requests[cursor++]!;
        const response = await fetch(`${explorer.site.url}/api/experiments/${request.name}`, {
          method: 'POST',
          headers: request.contentType ? { 'content-type': request.contentType } : {},
          body: request.body,
        });
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        assert.ok(
          response.status < 500,
          `${response.status} for ${JSON.stringify(request).slice(0, 300)}: ${text}`,
        );
        const parsed = JSON.parse(text);
        if (response.status >= 400) {
          assert.equal(typeof parsed.code, 'string', text);
          assert.ok(parsed.detail.length > 10, text);
          assert.doesNotMatch(text, /\bat .*\.(ts|js|mjs):\d+/, 'no stack trace');
        } else {
          assert.equal(typeof parsed.result, 'object');
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    assert.equal(total, REQUESTS);
    // The mix really did exercise both paths.
    assert.ok((statuses.get(400) ?? 0) > REQUESTS / 4, JSON.stringify([...statuses]));
    assert.ok((statuses.get(200) ?? 0) > 50, JSON.stringify([...statuses]));
    assert.ok((statuses.get(404) ?? 0) > 0 && (statuses.get(413) ?? 0) > 0 && (statuses.get(415) ?? 0) > 0);
  });

  it('leaves no key in the sandbox, in the grammar or outside it', async () => {
    assert.deepEqual(await explorer.allKeys(), []);
  });

  it('refuses any method but POST on an experiment, and serves the catalogue', async () => {
    const put = await fetch(`${explorer.site.url}/api/experiments/keys`, { method: 'PUT', body: '{}' });
    assert.equal(put.status, 405);
    assert.equal((await put.json()).code, 'METHOD');
    const catalogue = await (await fetch(`${explorer.site.url}/api/experiments`)).json();
    assert.deepEqual(
      catalogue.experiments.map((e: { name: string }) => e.name),
      ['keys', 'slot', 'layout', 'route', 'reshard', 'reserve', 'two-executors', 'console'],
    );
  });
});
