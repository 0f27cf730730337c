// "Did you mean …?": the edit distance behind the console's suggestion, at its reach and one past.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance, nearestCommands } from '../../server/contract/console/nearest-command.ts';

const NAMES = ['GET', 'SET', 'HGET', 'HSET', 'PING', 'EMQ.CLAIM', 'EMQ.ENQUEUE', 'DBSIZE'];

describe('nearestCommands', () => {
  it('counts a swap of neighbours as one edit', () => {
    assert.equal(editDistance('GTE', 'GET'), 1);
    assert.equal(editDistance('GET', 'GET'), 0);
    assert.equal(editDistance('', 'GET'), 3);
    assert.equal(editDistance('EMQ.CLAIN', 'EMQ.CLAIM'), 1);
  });

  it('suggests within one edit for short names and two for long ones, and nothing one past', () => {
    assert.deepEqual(nearestCommands('GTE', NAMES), ['GET']);
    assert.deepEqual(nearestCommands('PONG', NAMES), ['PING']);
    assert.deepEqual(nearestCommands('PNOG', NAMES), [], 'two edits from PING: past a short name’s reach');
    assert.deepEqual(nearestCommands('DBSZIE', NAMES), ['DBSIZE']);
    assert.deepEqual(nearestCommands('DBSIZZZ', NAMES), ['DBSIZE'], 'two edits: a long name’s reach');
    assert.deepEqual(nearestCommands('DBZZZZZ', NAMES), [], 'four edits');
  });

  it('names every candidate at the best distance, and never the exact name', () => {
    assert.deepEqual(nearestCommands('HET', NAMES), ['GET', 'SET', 'HGET', 'HSET']);
    assert.deepEqual(nearestCommands('GET', NAMES), []);
    assert.deepEqual(nearestCommands('NOPE', NAMES), []);
  });
});
