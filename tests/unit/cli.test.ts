// The emq command, run as an engineer runs it: a real process, its output and its exit code.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

describe('emq as a command-line tool', () => {
  it('answers -h, --help and help with its usage and examples, exit 0', () => {
    for (const ask of [['-h'], ['--help'], ['help'], ['keys', '--help']]) {
      const { code, stdout, stderr } = emq(...ask);
      assert.equal(code, 0, ask.join(' '));
      assert.equal(stderr, '');
      assert.match(stdout, /^usage:$/m);
      assert.match(stdout, /^examples:$/m);
      assert.match(stdout, /^ {2}emq keys orders --id JOB0Nb1VTbfnu4 /m);
    }
  });

  it('answers --version with the package version, exit 0', () => {
    const { code, stdout } = emq('--version');
    assert.equal(code, 0);
    const { version } = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8'));
    assert.equal(stdout, `emq ${version}\n`);
  });

  it('explains an unknown flag in its own words, with the flags it takes, exit 2', () => {
    const { code, stderr } = emq('keys', 'orders', '--jsn');
    assert.equal(code, 2);
    assert.match(
      stderr,
      /^emq: unknown option --jsn \(did you mean --json\?\); emq takes --id, --json, --help, -h, --version$/m,
    );
    assert.match(stderr, /Run 'emq --help' for examples\./);
    assert.doesNotMatch(stderr, /positional|parseArgs|ERR_PARSE_ARGS/);
    const far = emq('keys', 'orders', '--bogus');
    assert.equal(far.code, 2);
    assert.match(far.stderr, /^emq: unknown option --bogus; emq takes /m);
  });

  it('says what a command, a value or a count was wrong, exit 2', () => {
    const cases: Array<[string[], RegExp]> = [
      [['frobnicate'], /^emq: unknown command "frobnicate"; the commands are keys and slot$/m],
      [['sloot', 'x'], /^emq: unknown command "sloot" \(did you mean slot\?\)/m],
      [[], /^emq: no command given/m],
      [['keys', 'orders', '--id'], /^emq: --id needs a value: a branded job id/m],
      [['keys', 'orders', '--json=yes'], /^emq: --json takes no value \(found "yes"\)$/m],
      [['keys'], /^emq: keys takes one queue name, found 0/m],
      [['keys', 'a', 'b'], /^emq: keys takes one queue name, found 2/m],
      [['slot'], /^emq: slot takes one key or more/m],
      [['slot', 'k', '--id', 'JOB0Nb1VTbfnu4'], /^emq: --id belongs to keys/m],
    ];
    for (const [args, said] of cases) {
      const { code, stdout, stderr } = emq(...args);
      assert.equal(code, 2, args.join(' '));
      assert.equal(stdout, '');
      assert.match(stderr, said, args.join(' '));
    }
  });
});
