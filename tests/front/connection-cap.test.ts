// The per-address connection cap, at the limit and one past it: with MAX_CONNECTIONS_PER_ADDRESS=4,
// one address holds four open connections; its fifth takes the place of the oldest of them that has
// not sent a whole request (closed, unanswered), so a reader from a crowded address is served; with
// all four inside a request, the fifth is closed at once, unanswered, and no request in hand is lost.
// Another address is served meanwhile. (tests/front/same-address-flood.test.ts: 3,000 at the default.)

import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, it } from 'node:test';
import { requestFrom } from '../support/from-address.ts';
import { holdConnection, type Held } from '../support/held-connection.ts';
import { until } from '../support/until.ts';
import { useSite } from '../support/use-site.ts';

const CAP = 4;
const sockets: Socket[] = [];
// The held connections go before the site stops (after hooks run in order).
after(() => sockets.forEach((socket) => socket.destroy()));
// BODY_GRACE_MS: bodies that never come are held here (the pace is body-pace.test.ts's).
const site = useSite({
  MAX_CONNECTIONS_PER_ADDRESS: String(CAP),
  KEEP_ALIVE_TIMEOUT_MS: '300',
  BODY_GRACE_MS: '14000',
});

/** A connection from `localAddress` that has written `start` (a half-open request unless told). */
const hold = (localAddress: string, start?: string) => holdConnection(site.url, localAddress, sockets, start);

const settle = (ms = 300) => sleep(ms);

it(`holds ${CAP} half-open connections from one address; the ${CAP + 1}th takes the oldest one's place`, async () => {
  const held: Held[] = [];
  for (let i = 0; i < CAP; i += 1) {
    held.push(await hold('127.0.0.3'));
    await settle(20);
  }
  await settle();
  assert.deepEqual(
    held.map((h) => h.isClosed()),
    Array(CAP).fill(false),
    'the first four are held',
  );

  const past = await hold('127.0.0.3');
  await until('the oldest is closed', () => held[0]!.isClosed(), 5000, 20);
  await settle();
  assert.equal(held[0]!.answer(), '', 'the one shed is never answered');
  assert.equal(past.isClosed(), false, 'the fifth is held in its place');
  assert.deepEqual(
    held.slice(1).map((h) => h.isClosed()),
    Array(CAP - 1).fill(false),
    'the other three are still held',
  );

  // A reader from the same address: its whole request takes the next oldest place, and is answered.
  assert.equal((await requestFrom('127.0.0.3', `${site.url}/`)).status, 200);
  assert.equal(held[1]!.isClosed(), true, 'in place of the next oldest');
  assert.equal(past.isClosed(), false, 'not of the newer one');

  // Another address is a reader of its own, untouched by this one's cap.
  assert.equal((await requestFrom('127.0.0.4', `${site.url}/`)).status, 200);
  for (const h of [...held, past]) h.socket.destroy();
  await settle();
});

it(`with all ${CAP} of an address's connections inside a request, its ${CAP + 1}th is closed at once, unanswered`, async () => {
  // Headers sent, body not: the request is in hand (the API waits for its body), so it is not shed.
  const post =
    'POST /api/experiments/keys HTTP/1.1\r\nHost: l\r\ncontent-type: application/json\r\ncontent-length: 18\r\n\r\n';
  const inside: Held[] = [];
  for (let i = 0; i < CAP; i += 1) {
    inside.push(await hold('127.0.0.5', post));
    await settle(20);
  }
  await settle();
  assert.equal(inside.filter((h) => h.isClosed()).length, 0, `all ${CAP} held`);

  const past = await hold('127.0.0.5');
  await until(`the ${CAP + 1}th is closed`, () => past.isClosed(), 5000, 20);
  assert.equal(past.answer(), '', 'unanswered');
  await settle();
  assert.equal(inside.filter((h) => h.isClosed()).length, 0, 'no request in hand was shed');

  // Another address is served meanwhile; one connection given back makes room for the next.
  assert.equal((await requestFrom('127.0.0.6', `${site.url}/`)).status, 200);
  inside[0]!.socket.destroy();
  await inside[0]!.closed;
  await settle();
  assert.equal((await requestFrom('127.0.0.5', `${site.url}/`)).status, 200);
  assert.equal(
    inside.slice(1).some((h) => h.isClosed()),
    false,
    'the other three are still held',
  );
});
