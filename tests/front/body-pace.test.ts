// A request body keeps its pace or its connection goes (BODY_GRACE_MS, then BODY_BYTES_PER_S: a body of
// n bytes whole within grace + n ÷ rate). Here the grace is 1 s and the rate 1,000 bytes a second, so a
// 1,000-byte body has 2 s: one sent whole at 1.5 s is run; one still short at 2 s is closed with a 408
// (a byte every few seconds held a place for the whole 15 s request timeout). The abandoned request is
// logged as one line, without a stack.

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startSite, type Site } from '../../scripts/site.ts';
import { boundedTeardown } from '../support/teardown.ts';

let site: Site;
before(async () => {
  site = await startSite({ BODY_GRACE_MS: '1000', BODY_BYTES_PER_S: '1000' });
});
after(() => boundedTeardown(async () => site?.close()));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BODY = JSON.stringify({ queue: 'orders' }).padEnd(1000, ' ');

/** A POST of BODY whose last byte is sent at `lastByteAtMs`; what the site sent and when it closed. */
function paced(lastByteAtMs: number, localAddress: string): Promise<{ answer: string; closedAtMs: number }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(site.url).port), localAddress });
    let answer = '';
    let started = 0;
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', () => {});
    socket.once('connect', async () => {
      started = Date.now();
      socket.write(
        `POST /api/experiments/keys HTTP/1.1\r\nHost: l\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\nconnection: close\r\n\r\n`,
      );
      socket.write(BODY.slice(0, -1));
      await sleep(lastByteAtMs);
      if (!socket.destroyed) socket.write(BODY.slice(-1));
    });
    socket.once('close', () => resolve({ answer, closedAtMs: Date.now() - started }));
  });
}

describe('a request body’s pace', () => {
  it('runs a body whole within its allowance (1.5 s of 2 s)', async () => {
    const { answer } = await paced(1500, '127.0.8.1');
    assert.match(answer, /^HTTP\/1\.1 200 /);
  });

  it('closes one past its allowance with a 408, and logs it as one line without a stack', async () => {
    const { answer, closedAtMs } = await paced(3500, '127.0.8.2');
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.ok(closedAtMs >= 1900 && closedAtMs < 3400, `closed at ${closedAtMs} ms, at its 2 s allowance`);
    await sleep(300);
    const log = site.output();
    // One line (the log's own format: a JSON line), naming the request and that it was abandoned.
    assert.match(log, /request abandoned[^\n]*POST \/api\/experiments\/keys: aborted[^\n]*\n/);
    assert.doesNotMatch(log, /request failed|"stack"|\n\s+at /, 'no stack, no failure');
    // The access log's line for it says the 408 the reader got.
    const access = log
      .split('\n')
      .filter((line) => line.startsWith('{"'))
      .map((line) => JSON.parse(line) as { path?: string; status?: number; aborted?: boolean })
      .filter((entry) => entry.path === '/api/experiments/keys' && entry.aborted);
    assert.deepEqual(
      access.map((entry) => entry.status),
      [408],
    );
  });
});
