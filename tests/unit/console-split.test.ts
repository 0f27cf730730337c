import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isGrammarKey, plan } from '../../server/contract/console/allow-list.ts';
import { CONSOLE_CAPS } from '../../server/contract/limits.ts';
import { LineError, splitLine } from '../../server/contract/console/split-line.ts';
import { reprCommand } from '../../server/contract/wire/repr.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const split = (line: string) => splitLine(line).map((arg) => [...arg]);

describe('a console line, split by redis-cli quoting', () => {
  it('splits on blanks and reads double-quoted escapes as bytes', () => {
    assert.deepEqual(split('  GET   emq:{a}:pending '), [[...bytes('GET')], [...bytes('emq:{a}:pending')]]);
    assert.deepEqual(split('ECHO "a b\\n\\"\\xff\\\\"'), [
      [...bytes('ECHO')],
      [0x61, 0x20, 0x62, 0x0a, 0x22, 0xff, 0x5c],
    ]);
    assert.deepEqual(split("ECHO 'it\\'s \\n'"), [[...bytes('ECHO')], [...bytes("it's \\n")]]);
    assert.deepEqual(split('ECHO ""'), [[...bytes('ECHO')], []]);
    assert.deepEqual(split('ECHO é'), [[...bytes('ECHO')], [0xc3, 0xa9]]);
  });

  it('refuses unbalanced quotes and a closing quote glued to more text', () => {
    assert.throws(() => splitLine('GET "abc'), LineError);
    assert.throws(() => splitLine("GET 'abc"), LineError);
    assert.throws(() => splitLine('GET "a"b'), /must be followed by a space/);
  });

  it('prints a command back so that splitting it again gives the same bytes', () => {
    const argv = splitLine('HSET "emq:{a b}:meta" paused "\\x00\\xffé\\""');
    assert.equal(reprCommand(argv), 'HSET "emq:{a b}:meta" paused "\\x00\\xff\\xc3\\xa9\\""');
    assert.deepEqual(splitLine(reprCommand(argv)), argv);
  });
});

describe('the allow-list', () => {
  it('knows the keys of the grammar and nothing else', () => {
    for (const key of ['emq:{orders}:pending', 'emq:{orders}:job:JOB0Nb1VTbfnu4', 'emq:{é}:metrics:failed'])
      assert.equal(isGrammarKey(bytes(key)), true, key);
    for (const key of [
      'emq:{orders}:job:',
      'emq:{}:pending',
      'emq:{orders}:nope',
      '{emq}:version',
      'foo',
      'emq:{a{b}:pending',
    ])
      assert.equal(isGrammarKey(bytes(key)), false, key);
  });

  it('expands SCRIPT <verb> and plans CLUSTER KEYSLOT on the cluster node', () => {
    const script = plan(splitLine('script CLAIM 3 emq:{a}:pending emq:{a}:active emq:{a}:job: 100'));
    assert.ok(script.ok && script.script === 'claim' && script.keys.length === 3);
    const keyslot = plan(splitLine('cluster keyslot foo'));
    assert.ok(keyslot.ok && keyslot.node === 'cluster');
  });

  it('bounds SCAN COUNT, the reads, the writes and a transition: at the cap and one past', () => {
    const { scanCount, pairs: pairCap, keys: keyCap, identityBytes, transitionArgs } = CONSOLE_CAPS;
    assert.equal(plan(splitLine(`SCAN 0 COUNT ${scanCount}`)).ok, true);
    assert.equal(plan(splitLine(`SCAN 0 COUNT ${scanCount + 1}`)).ok, false);
    const pairs = (n: number) => Array.from({ length: n }, (_, i) => `f${i} v`).join(' ');
    assert.equal(plan(splitLine(`HSET emq:{a}:meta ${pairs(pairCap)}`)).ok, true);
    assert.equal(plan(splitLine(`HSET emq:{a}:meta ${pairs(pairCap + 1)}`)).ok, false);
    const keys = (n: number) => Array.from({ length: n }, () => 'emq:{a}:pending').join(' ');
    for (const command of ['DEL', 'EXISTS']) {
      assert.equal(plan(splitLine(`${command} ${keys(keyCap)}`)).ok, true, command);
      assert.equal(plan(splitLine(`${command} ${keys(keyCap + 1)}`)).ok, false, command);
    }
    assert.equal(plan(splitLine(`SET {emq}:version ${'x'.repeat(identityBytes)} NX`)).ok, true);
    assert.equal(plan(splitLine(`SET {emq}:version ${'x'.repeat(identityBytes + 1)} NX`)).ok, false);
    const args = (n: number) =>
      ['1 emq:{a}:pending', ...Array.from({ length: n - 2 }, (_, i) => `a${i}`)].join(' ');
    for (const verb of ['EMQ.ENQUEUE', 'SCRIPT enqueue']) {
      assert.equal(plan(splitLine(`${verb} ${args(transitionArgs)}`)).ok, true, verb);
      const over = plan(splitLine(`${verb} ${args(transitionArgs + 1)}`));
      assert.ok(!over.ok && over.code === 'BAD_ARGUMENTS', verb);
    }
    for (const line of [
      'SET {emq}:version x',
      'SET emq:{a}:meta x NX',
      'DEL {emq}:version',
      'HSET foo a b',
      'GET foo',
    ])
      assert.deepEqual(plan(splitLine(line)).ok, false, line);
  });
});
