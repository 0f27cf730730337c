// What the site and the tests read of scripts/valkey9.sh's folder: ready only with both binaries, being
// built only while the building process lives, and otherwise absent with the reason said.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { valkey9Build } from '../../server/sandbox/valkey9-build.ts';

const root = mkdtempSync(join(tmpdir(), 'emq-valkey9-state-'));
after(() => rmSync(root, { recursive: true, force: true }));

function folder(state: string | null, binaries: string[] = []): string {
  const home = mkdtempSync(join(root, 'home-'));
  if (state !== null) writeFileSync(join(home, 'state'), `${state}\n`);
  mkdirSync(join(home, 'bin'));
  for (const name of binaries) writeFileSync(join(home, 'bin', name), '');
  return home;
}

const read = (home: string) => valkey9Build({ VALKEY9_HOME: home });

describe('the Valkey 9.1 build folder', () => {
  it('is ready with its version when the state says so and both binaries are there', () => {
    const home = folder('ready 9.1.2', ['valkey-server', 'valkey-cli']);
    assert.deepEqual(read(home), {
      state: 'ready',
      version: '9.1.2',
      server: join(home, 'bin', 'valkey-server'),
      cli: join(home, 'bin', 'valkey-cli'),
    });
  });

  it('is absent, saying which binary is missing, when one is not there', () => {
    const result = read(folder('ready 9.1.2', ['valkey-server']));
    assert.equal(result.state, 'absent');
    assert.match((result as { why: string }).why, /valkey-cli is missing/);
  });

  it('is absent when the folder does not exist, and says what builds it', () => {
    const result = read(join(root, 'no-such-folder'));
    assert.equal(result.state, 'absent');
    assert.match((result as { why: string }).why, /not built .*scripts\/valkey9\.sh/);
  });

  it('is being built while the building process lives, and absent once it died unfinished', async () => {
    const child = spawn('sleep', ['30']);
    const home = folder(`building ${child.pid}`);
    assert.equal(read(home).state, 'building');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
    const result = read(home);
    assert.equal(result.state, 'absent');
    assert.match((result as { why: string }).why, /stopped before it finished/);
  });

  it('passes a failed build’s reason on, and calls any other state unreadable', () => {
    const failed = read(folder('failed: make failed (see build.log)'));
    assert.deepEqual(failed, { state: 'absent', why: 'the build failed: make failed (see build.log)' });
    const odd = read(folder('half-done'));
    assert.deepEqual(odd, { state: 'absent', why: 'unreadable state half-done' });
  });
});
