// The TypeScript transition table against the fixture's `verbs`, which the Rust module's tests read
// too: the verb, the script, the declared keys and the arguments cannot drift apart between the sides.
// And `callFor`, which builds every call from that table; and docs/wire.md's transition table, written from it.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { callFor } from '../../server/contract/calls.ts';
import { exactCall } from '../../server/contract/exact-call.ts';
import { CORE_TRANSITIONS, TRANSITIONS } from '../../server/contract/transitions.ts';
import { withTransitionTable } from '../../server/contract/transition-markdown.ts';
import { KeyspaceError, splitQueueKey } from '../../server/contract/keyspace/index.ts';

interface FixtureVerb {
  verb: string;
  script: string;
  keys: string[];
  args: string[];
}

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/keyspace-vectors.json', import.meta.url), 'utf8'),
);
const ID = 'JOB0Nb1VTbfnu4';

describe('the transition table', () => {
  it('has exactly the fixture’s verbs, scripts, keys and arguments', () => {
    const verbs = fixture.verbs as FixtureVerb[];
    assert.deepEqual(
      verbs.map((v) => v.verb),
      CORE_TRANSITIONS.map((t) => TRANSITIONS[t].command),
    );
    for (const transition of CORE_TRANSITIONS) {
      const declared = TRANSITIONS[transition];
      const expected = verbs.find((v) => v.verb === declared.command)!;
      assert.equal(declared.script, expected.script, transition);
      assert.deepEqual([...declared.keys], expected.keys, transition);
      assert.deepEqual([...declared.args], expected.args, transition);
      // The keys a real call sends, written back in the fixture's notation (the row as job:<id>).
      const { call } = exactCall(transition, 'orders', ID);
      const types = call.keys.map((key) => splitQueueKey(key)!.type.replace(ID, '<id>'));
      assert.deepEqual(types, expected.keys, transition);
    }
  });

  it('writes docs/wire.md’s transition table (regenerate: node scripts/wire-doc.ts)', () => {
    const wire = readFileSync(new URL('../../docs/wire.md', import.meta.url), 'utf8');
    assert.equal(wire, withTransitionTable(wire), 'docs/wire.md is stale: node scripts/wire-doc.ts');
    // Every transition has its row, named as the page names it, with its reply.
    for (const [transition, { reply }] of Object.entries(TRANSITIONS)) {
      const verb = transition.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`);
      assert.ok(wire.includes(`| ${verb} |`) && wire.includes(`| ${reply} |`), transition);
    }
  });
});

describe('callFor', () => {
  it('builds the keys from the table’s notation and the arguments in the table’s order', () => {
    assert.deepEqual(
      callFor('retry', 'orders', { id: ID, token: 7, delay_ms: 1000, max_attempts: 3, error: 'boom' }),
      {
        transition: 'retry',
        keys: [
          'emq:{orders}:active',
          'emq:{orders}:schedule',
          'emq:{orders}:dead',
          `emq:{orders}:job:${ID}`,
          'emq:{orders}:metrics:failed',
        ],
        args: [ID, '7', '1000', '3', 'boom'],
      },
    );
    assert.deepEqual(
      callFor('laneEnqueue', 'orders', { id: ID, payload: 'p', group: 'GRP0000000000a' }).keys,
      [
        `emq:{orders}:job:${ID}`,
        'emq:{orders}:g:GRP0000000000a:pending',
        'emq:{orders}:ring',
        'emq:{orders}:paused',
        'emq:{orders}:glimit',
        'emq:{orders}:gactive',
      ],
    );
  });

  it('takes every whole number up to 2^53-1 and refuses one past it, a fraction and a negative', () => {
    const max = Number.MAX_SAFE_INTEGER;
    assert.deepEqual(callFor('promote', 'orders', { batch: max }).args, [String(max)]);
    assert.deepEqual(callFor('claim', 'orders', { lease_ms: 0 }).args, ['0']);
    for (const bad of [max + 1, 1.5, -1, Number.NaN]) {
      assert.throws(() => callFor('promote', 'orders', { batch: bad }), {
        name: 'RangeError',
        message: `batch must be a whole number from 0 to ${max}, found ${bad}`,
      });
    }
  });

  it('runs the admission check for the admission verbs only, before any key is built', () => {
    for (const transition of ['enqueue', 'schedule', 'laneEnqueue'] as const) {
      assert.equal(TRANSITIONS[transition].admits, true, transition);
    }
    assert.throws(() => callFor('enqueue', 'a{b', { id: 'not an id', payload: 'x' }), { code: 'BRACE' });
    assert.throws(() => callFor('schedule', '', { id: ID, payload: 'x', run_at_ms: 0 }), {
      code: 'EMPTY_QUEUE',
    });
    // A worker verb on an existing queue is not an admission: the module's layout check answers it.
    assert.equal(callFor('claim', 'a{b', { lease_ms: 1 }).keys[0], 'emq:{a{b}:pending');
    assert.throws(() => callFor('complete', 'orders', { id: 'USR', token: 1 }), KeyspaceError);
  });
});
