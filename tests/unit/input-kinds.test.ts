// A refusal names what it found in plain words: "a number", "an object", "nothing (the field is
// missing)" — never "a undefined" or "a object".

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fields, InputError, text } from '../../server/input/fields.ts';

const refusalOf = (work: () => unknown): string => {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof InputError);
    return error.message;
  }
  throw new Error('not refused');
};

describe('what a refusal says it found', () => {
  it('says a missing field is missing', () => {
    assert.equal(
      refusalOf(() => text({}, 'queue', 64)),
      'queue: expected a string, found nothing (the field is missing)',
    );
  });
  it('names each kind with its article', () => {
    assert.equal(
      refusalOf(() => text({ queue: 1 }, 'queue', 64)),
      'queue: expected a string, found a number',
    );
    assert.equal(
      refusalOf(() => text({ queue: {} }, 'queue', 64)),
      'queue: expected a string, found an object',
    );
    assert.equal(
      refusalOf(() => text({ queue: [] }, 'queue', 64)),
      'queue: expected a string, found an array',
    );
    assert.equal(
      refusalOf(() => text({ queue: null }, 'queue', 64)),
      'queue: expected a string, found null',
    );
    assert.equal(
      refusalOf(() => fields('x', [])),
      'body: expected a JSON object, found a string',
    );
  });
});
