// The TypeScript transition table against the fixture's `verbs`, which the Rust module's tests read
// too: the verb, the script, the declared keys and the arguments cannot drift apart between the sides.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { exactCall } from '../../server/executors/exact-call.ts';
import { CORE_TRANSITIONS, TRANSITIONS } from '../../server/executors/transitions.ts';
import { splitQueueKey } from '../../server/keyspace/index.ts';

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
      assert.deepEqual([...declared.args], expected.args, transition);
      // The keys a real call declares, written as the fixture writes them (the row as job:<id>).
      const { call } = exactCall(transition, 'orders', ID);
      const types = call.keys.map((key) => splitQueueKey(key)!.type.replace(ID, '<id>'));
      assert.deepEqual(types, expected.keys, transition);
    }
  });
});
