// What `npm test` reports is every verdict: each file's process ends once its report is out, a handle left
// open or not (tests/support/exit-when-done.ts), never by --test-force-exit, which lost a file's last
// verdicts and could leave a failure unnamed (nodejs/node#64833). Real runs of `node --test`, as the
// scripts start it, over generated files.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const PRELOAD = join(ROOT, 'tests', 'support', 'exit-when-done.ts');
const TESTS = 301;

describe("the test run's report", () => {
  const dir = mkdtempSync(join(tmpdir(), 'emq-report-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A file of TESTS passing tests and a last one failing; `linger`: a handle left open for good. */
  const file = (name: string, linger: boolean) => {
    const lines = ["import { test } from 'node:test';"];
    if (linger) lines.push('setInterval(() => {}, 1000);');
    for (let i = 1; i <= TESTS; i += 1) lines.push(`test('${name} ${i}', () => {});`);
    lines.push(`test('${name} fails', () => { throw new Error('${name} broke'); });`);
    const path = join(dir, `${name}.test.mjs`);
    writeFileSync(path, lines.join('\n'));
    return path;
  };

  it('counts every test of every file and names every failure, a file holding a handle open included', () => {
    const files = [file('a', false), file('b', false), file('c', false), file('d', true)];
    const run = spawnSync(
      process.execPath,
      ['--test', '--test-concurrency=3', '--import', PRELOAD, ...files],
      // Not as a file of this run (NODE_TEST_CONTEXT would make it one): a run of its own.
      {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, NODE_TEST_CONTEXT: undefined, TEST_EXIT_AFTER_MS: '500' },
      },
    );
    assert.equal(run.status, 1, 'a failing test fails the run');
    assert.match(run.stdout, new RegExp(`^# tests ${files.length * (TESTS + 1)}$`, 'm'));
    assert.match(run.stdout, new RegExp(`^# fail ${files.length}$`, 'm'));
    for (const name of ['a', 'b', 'c', 'd']) {
      assert.match(run.stdout, new RegExp(`^not ok \\d+ - ${name} fails$`, 'm'), `${name}'s failure named`);
      assert.match(run.stdout, new RegExp(`${name} broke`), `${name}'s failure says why`);
    }
  });

  it('both test scripts load it, and neither asks node for --test-force-exit', () => {
    for (const script of ['scripts/test.sh', 'scripts/test-kind.sh']) {
      const text = readFileSync(join(ROOT, script), 'utf8');
      const command = text.split('\n').find((line) => /^(exec )?node --test /.test(line));
      assert.ok(command, `${script} runs node --test`);
      assert.match(command, /--import \.\/tests\/support\/exit-when-done\.ts/, script);
      assert.doesNotMatch(command, /--test-force-exit/, script);
    }
  });
});
