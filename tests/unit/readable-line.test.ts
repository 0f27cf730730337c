// A wire line shown with its UTF-8 names as text (é€, as every other view shows them), and every byte
// that is not whole printable UTF-8 still escaped as redis-cli writes it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readableLine } from '../../src/components/explorer/wire-view.ts';

describe('readableLine', () => {
  it('shows whole UTF-8 characters as themselves', () => {
    assert.equal(
      readableLine(
        'EMQ.ENQUEUE 2 "emq:{\\xc3\\xa9\\xe2\\x82\\xac}:job:X" "emq:{\\xc3\\xa9\\xe2\\x82\\xac}:pending"',
      ),
      'EMQ.ENQUEUE 2 "emq:{é€}:job:X" "emq:{é€}:pending"',
    );
    assert.equal(readableLine('GET "\\xf0\\x9f\\x98\\x80"'), 'GET "😀"');
  });

  it('keeps control bytes, broken UTF-8 and escaped backslashes as they were', () => {
    for (const line of [
      'GET "a\\x00b"',
      'GET "\\xff"',
      'GET "\\xc3"',
      'GET "\\xc2\\x85"',
      'ECHO "\\\\xc3\\xa9"',
      'PING',
    ])
      assert.equal(readableLine(line), line);
  });
});
