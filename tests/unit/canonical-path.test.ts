// Every spelling of a path reads as one: the front's limiter, its API and Astro's router see the same.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  canonicalPath,
  DECODE_ROUNDS,
  PathError,
  readCanonicalPath,
} from '../../server/front/canonical-path.ts';

describe('the canonical form of a path', () => {
  const ISLAND = '/_server-islands/Explorer';
  const spellings = [
    ISLAND,
    '//_server-islands/Explorer',
    '///_server-islands//Explorer',
    '/%5Fserver-islands/Explorer',
    '/%5fserver-islands/Explorer',
    '/%255Fserver-islands/Explorer',
    '/./_server-islands/Explorer',
    '/x/../_server-islands/Explorer',
    '/x/%2e%2e/_server-islands/Explorer',
    '/x/.%2E/_server-islands/Explorer',
    '/../_server-islands/Explorer',
    '/\\_server-islands/Explorer',
    '/%5C_server-islands/Explorer',
    '/_server-islands/./Explorer',
    '/%5F%73erver-islands/%45xplorer',
  ];
  for (const spelling of spellings)
    it(`${spelling} reads as ${ISLAND}`, () => assert.equal(canonicalPath(spelling), ISLAND));

  it('keeps what a URL needs encoded, and is its own canonical form', () => {
    for (const path of ['/a b/é', '/a%2Fb', '/x/..', '/x/.', '/', '/api/experiments/keys', '/%C3%A9/%20/'])
      assert.equal(canonicalPath(canonicalPath(path)), canonicalPath(path), path);
    assert.equal(canonicalPath('/a b/é'), '/a%20b/%C3%A9');
    assert.equal(canonicalPath('/a%2Fb'), '/a%2Fb', 'an escaped slash stays a byte of its segment');
    assert.equal(canonicalPath('/x/..'), '/');
    assert.equal(canonicalPath('/api/x/./../experiments/keys'), '/api/experiments/keys');
  });

  it(`decodes ${DECODE_ROUNDS} rounds deep and refuses one more; refuses a bad escape and a target that is no path`, () => {
    // %25…25 5F: each round turns one %25 into %, the last turns %5F into _.
    const atLimit = '/' + '%' + '25'.repeat(DECODE_ROUNDS - 1) + '5Fserver-islands/x';
    assert.equal(canonicalPath(atLimit), '/_server-islands/x');
    const past = '/' + '%' + '25'.repeat(DECODE_ROUNDS) + '5Fserver-islands/x';
    assert.throws(() => canonicalPath(past), PathError);
    assert.throws(() => canonicalPath('/%E0%A4%A'), /not a valid UTF-8 escape/);
    assert.throws(() => canonicalPath('/%'), PathError);
    assert.throws(() => canonicalPath('http://h/_server-islands/x'), /starting with \//);
    assert.throws(() => canonicalPath('*'), PathError);
  });
});

describe('a path already canonical', () => {
  // Paths from the characters that change a reading (escapes, backslashes, dots, slashes, what a URL
  // encodes) and those that do not: the answer given at once must be the one the whole reading gives.
  const piece = fc.constantFrom(
    ...[
      '/',
      '//',
      '.',
      '..',
      '%',
      '%2e',
      '%5F',
      '%2F',
      '\\',
      'a',
      'Z',
      '9',
      '-',
      '_',
      '~',
      ':',
      '@',
      '!',
      '=',
      'é',
      ' ',
      '?',
    ],
  );
  it('is answered as the whole reading answers it, for every spelling tried', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const path = '/' + pieces.join('');
        let full: string | Error;
        try {
          full = readCanonicalPath(path);
        } catch (error) {
          full = error as Error;
        }
        if (full instanceof Error) assert.throws(() => canonicalPath(path), PathError);
        else assert.equal(canonicalPath(path), full, path);
      }),
      { numRuns: 20_000 },
    );
  });

  it('the course and API paths are answered as they are', () => {
    for (const path of ['/', '/api/experiments/keys', '/learn/the-owned-keyspace/', '/llms.txt', '/a/..b/.c'])
      assert.equal(canonicalPath(path), readCanonicalPath(path), path);
  });
});
