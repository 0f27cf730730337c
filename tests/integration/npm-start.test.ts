// `npm start` (scripts/start.sh) says "serving on <address>" only once the site answers there: the
// moment the line is printed, the home page is answered. Run as a reader runs it, on a free port, with
// the site's own sandbox; stopped by its process group (the script execs the server, so that group is
// this run's alone).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { freePort } from '../../server/sandbox/free-port.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

test('npm start says "serving on" once the site answers, at the address it names', async () => {
  const port = await freePort();
  const child = spawn('bash', ['scripts/start.sh'], {
    cwd: ROOT,
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      VALKEY9_AT_START: '0',
      VALKEY_URL: '',
      VALKEY_CLUSTER_URL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  try {
    const answer = await new Promise<{ line: string; status: number }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "serving on" within 120 s:\n${output}`)), 120_000);
      let seen = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
        seen += chunk;
        const line = /serving on (\S+)/.exec(seen);
        if (!line) return;
        seen = '';
        clearTimeout(timer);
        // asked at once: the line must not come before the server answers
        fetch(`http://127.0.0.1:${port}/`).then(
          (response) => resolve({ line: line[1]!, status: response.status }),
          (error: Error) =>
            reject(new Error(`"serving on" printed, but the site did not answer: ${error.message}`)),
        );
      });
      child.once('exit', (code) => reject(new Error(`start.sh ended (${code}):\n${output}`)));
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.line.replace(/\x1b\[[0-9;]*m/g, ''), `http://localhost:${port}`);
    assert.equal(output.match(/serving on/g)?.length, 1, 'said once');
  } finally {
    if (child.exitCode === null) {
      const ended = new Promise((done) => child.once('exit', done));
      process.kill(-child.pid!, 'SIGTERM');
      await ended;
    }
  }
});
