// The emq command, run as an engineer runs it: a real process, its output and its exit code.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

const ROOT = new URL('../../', import.meta.url);

function emq(...args: string[]) {
  const result = spawnSync(process.execPath, ['server/cli/emq.ts', ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('emq keys', () => {
  it('prints every key of the queue with its slot, the row and the reserve', () => {
    const { code, stdout } = emq('keys', 'orders', '--id', 'JOB0Nb1VTbfnu4');
    assert.equal(code, 0);
    assert.match(stdout, /^emq:\{orders\}:pending +slot +105 +pending$/m);
    assert.match(stdout, /^emq:\{orders\}:job:JOB0Nb1VTbfnu4 +slot +105 +job row$/m);
    assert.match(stdout, /^\{emq\}:version +slot +9051 /m);
  });

  it('gives machine-readable output with --json', () => {
    const { code, stdout } = emq('keys', 'fills', '--json');
    assert.equal(code, 0);
    const parsed = JSON.parse(stdout);
    assert.equal(parsed.queue, 'fills');
    const pending = parsed.keys.find((row: { type: string }) => row.type === 'pending');
    assert.deepEqual(pending, { key: 'emq:{fills}:pending', type: 'pending', hashtag: 'fills', slot: 4165 });
  });

  it('exits non-zero with the library error for a bad name or id', () => {
    const brace = emq('keys', 'a{b');
    assert.equal(brace.code, 2);
    assert.match(brace.stderr, /invalid queue name: byte 1 is '\{' \(0x7b\)/);
    const id = emq('keys', 'orders', '--id', 'USRzzzzzzzzzzz', '--json');
    assert.equal(id.code, 2);
    assert.equal(JSON.parse(id.stderr).error.code, 'BAD_ID');
    assert.equal(emq('frobnicate').code, 2);
    assert.equal(emq('keys', 'orders', '--bogus').code, 2);
  });
});

describe('emq slot', () => {
  it('prints each key’s hashtag and slot', () => {
    const { code, stdout } = emq('slot', '123456789', 'foo{{bar}}zap', '--json');
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(stdout), [
      { key: '123456789', hashtag: '123456789', slot: 12739 },
      { key: 'foo{{bar}}zap', hashtag: '{bar', slot: 4015 },
    ]);
  });
});
