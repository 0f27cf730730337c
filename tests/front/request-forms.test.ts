// Requests in forms HTTP/1.1 allows but browsers do not send: an absolute-form target
// (`GET http://host/path HTTP/1.1`, RFC 9112 §3.2.2) is read as its path (it was a 400 BAD_PATH), and
// `CONNECT` is answered 405 with what the site takes (Node closed it with no answer).

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startSite, type Site } from '../../scripts/site.ts';
import { boundedTeardown } from '../support/teardown.ts';

let site: Site;
before(async () => {
  site = await startSite();
});
after(() => boundedTeardown(async () => site?.close()));

/** `raw` written on a connection of its own; everything the site sent until it closed (or 10 s). */
function exchange(raw: string, localAddress: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(site.url).port), localAddress });
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', () => {});
    socket.once('connect', () => socket.write(raw));
    socket.once('close', () => resolve(received));
    setTimeout(() => socket.destroy(), 10_000);
  });
}

describe('request forms', () => {
  it('reads an absolute-form target as its path, with its authority as the host', async () => {
    const answer = await exchange(
      'GET http://example.test/api/sandbox HTTP/1.1\r\nHost: other\r\nconnection: close\r\n\r\n',
      '127.0.9.1',
    );
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, /"sandbox":"(up|degraded|down)"/);
    const page = await exchange(
      `GET ${site.url}/ HTTP/1.1\r\nHost: x\r\nconnection: close\r\n\r\n`,
      '127.0.9.2',
    );
    assert.match(page, /^HTTP\/1\.1 200 /);
  });

  it('answers CONNECT 405, saying which methods it takes, and closes', async () => {
    const answer = await exchange(
      'CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n',
      '127.0.9.3',
    );
    assert.match(answer, /^HTTP\/1\.1 405 /);
    assert.match(answer, /\r\nallow: GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS\r\n/i);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    assert.match(JSON.stringify(body), /CONNECT/);
  });
});
