// The overall connection cap takes each new place from the address holding the most (its oldest
// waiting connection, else its oldest), so a reader who sends a whole request is served while
// half-open connections from many addresses, each under its per-address cap, fill every place, and an
// address takes places only until it holds as many as another. At the cap with every place inside a
// request, the address holding the most gives one up to a fresh reader, and an address holding as many
// is refused; a place given back serves the next. MAX_CONNECTIONS=12 here (8,192 by default:
// bench/half-open-flood.ts floods that at full scale and prints the figures).

import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { SHEDS_FOR_AT_MOST } from '../../server/front/connection-cap.ts';
import { requestFrom } from '../support/from-address.ts';
import { HALF_OPEN, holdConnection, type Held } from '../support/held-connection.ts';
import { until } from '../support/until.ts';
import { useSite } from '../support/use-site.ts';

const settle = (ms = 300) => sleep(ms);
const CAP = 12;
const PER_ADDRESS = 4;
const sockets: Socket[] = [];
// The held connections go before the site stops (after hooks run in order).
after(() => sockets.forEach((socket) => socket.destroy()));
const site = useSite(
  {
    MAX_CONNECTIONS: String(CAP),
    // Above SHEDS_FOR_AT_MOST, so one address can become a crowd.
    MAX_CONNECTIONS_PER_ADDRESS: String(SHEDS_FOR_AT_MOST + 4),
    // Idle kept-alive connections (the start's own requests) go soon, so the test counts only its own.
    KEEP_ALIVE_TIMEOUT_MS: '300',
    // Bodies that never come are held here (the pace, 2 s by default, is body-pace.test.ts's).
    BODY_GRACE_MS: '14000',
  },
  async (site) => {
    // The site's first request starts its sandbox; once that has answered, nothing of the start is in hand.
    assert.equal((await requestFrom('127.0.3.200', `${site.url}/api/sandbox`)).status, 200);
    await settle(1000);
  },
);

/** A connection from `localAddress` that has written `start` (never a whole request unless told). */
const open = (localAddress: string, start: string) => holdConnection(site.url, localAddress, sockets, start);

describe('at the overall connection cap', () => {
  it('takes each new place from the address holding most, and serves a fresh reader', async () => {
    const addresses = Array.from({ length: 4 }, (_, i) => `127.0.3.${i + 1}`);
    const held: Held[] = [];
    // One at a time, so the server accepts them in this order: 16 for 12 places.
    for (const address of addresses)
      for (let i = 0; i < PER_ADDRESS; i += 1) {
        held.push(await open(address, HALF_OPEN));
        await settle(20);
      }
    // The fourth address's first three each take the oldest place of an address holding 4 (the 1st,
    // 2nd, 3rd); its fourth would hold as many as any other, and is refused.
    const closed = () => held.map((h, i) => (h.isClosed() ? i : -1)).filter((i) => i >= 0);
    await until('three shed and one refused', () => closed().length === 4, 5000, 50);
    await settle();
    assert.deepEqual(closed(), [0, 4, 8, 15], 'one of each of the first three addresses, and the last');
    assert.ok(
      held.every((h) => h.answer() === ''),
      'a shed or refused connection gets no answer',
    );

    // A fresh reader, ten times: each request is whole, and its address holds the fewest.
    for (let i = 0; i < 10; i += 1) {
      const page = await requestFrom('127.0.3.100', `${site.url}/`);
      assert.equal(page.status, 200, `try ${i + 1}`);
    }
    const stillHeld = held.filter((h) => !h.isClosed()).length;
    assert.equal(stillHeld, CAP - 1, 'the reader took one place, from an address holding most');
    assert.equal(held[1]!.isClosed(), true, 'the oldest of the first address, which held most first');

    // One address opening more than its share: it takes places from the addresses holding more than it
    // would, until it holds as many as another (3), and its next are refused, shedding no one.
    const crowd: Held[] = [];
    for (let i = 0; i < SHEDS_FOR_AT_MOST; i += 1) {
      crowd.push(await open('127.0.3.50', HALF_OPEN));
      await settle(20);
    }
    await settle();
    const crowdHeld = crowd.filter((h) => !h.isClosed()).length;
    const othersHeld = addresses.map(
      (_, a) => held.slice(a * PER_ADDRESS, (a + 1) * PER_ADDRESS).filter((h) => !h.isClosed()).length,
    );
    assert.equal(crowdHeld, 3, `the crowd holds as many as the most another holds (${othersHeld})`);
    assert.equal(Math.max(...othersHeld), 3);
    const othersBefore = held.filter((h) => !h.isClosed()).length;
    const oneMore = await open('127.0.3.50', HALF_OPEN);
    await until('its next is refused', () => oneMore.isClosed(), 5000, 50);
    await settle();
    assert.equal(held.filter((h) => !h.isClosed()).length, othersBefore, 'and shed no one');
    for (const h of crowd) h.socket.destroy();
    for (const h of held) h.socket.destroy();
    await settle();
  });

  it(`with all ${CAP} places inside a request, the address holding most gives one up to a fresh reader`, async () => {
    // Headers sent, body not: the request is in hand (the API waits for its body).
    const post =
      'POST /api/experiments/keys HTTP/1.1\r\nHost: l\r\ncontent-type: application/json\r\ncontent-length: 18\r\n\r\n';
    const inside: Held[] = [];
    for (let i = 0; i < CAP; i += 1) {
      inside.push(await open(`127.0.4.${Math.floor(i / PER_ADDRESS) + 1}`, post));
      await settle(20);
    }
    await settle();
    assert.equal(inside.filter((h) => h.isClosed()).length, 0, `all ${CAP} held`);

    // A fresh reader: its address holds none, each of the three holds 4; the first of them gives up its oldest.
    const reader = await requestFrom('127.0.4.100', `${site.url}/`);
    assert.equal(reader.status, 200, 'the fresh reader is served');
    await until('one request in hand was shed', () => inside.some((h) => h.isClosed()), 5000, 50);
    assert.deepEqual(
      inside.map((h, i) => (h.isClosed() ? i : -1)).filter((i) => i >= 0),
      [0],
      'the oldest connection of the address holding most, and only it',
    );
    assert.equal(inside[0]!.answer(), '', 'a shed connection gets no answer');

    // The reader's place, given back once its kept-alive connection goes, is taken again: every place
    // is inside a request. An address holding as many as any other then takes no one's place.
    await settle(600);
    inside.push(await open('127.0.4.1', post));
    await settle();
    const past = await open('127.0.4.2', HALF_OPEN + '\r\n');
    await until(`its ${PER_ADDRESS + 1}th is closed`, () => past.isClosed(), 5000, 50);
    assert.equal(past.answer(), '', 'unanswered');
    assert.equal(inside.filter((h) => h.isClosed()).length, 1, 'and no other request in hand was shed');
    inside.at(-1)!.socket.destroy();

    // One body sent: that run is answered, its connection closes, and the next reader is served.
    inside[1]!.socket.write('{"queue":"orders"}');
    await until('the run is answered', () => inside[1]!.answer().length > 0, 15_000, 50);
    inside[1]!.socket.destroy();
    await inside[1]!.closed;
    assert.match(inside[1]!.answer(), /^HTTP\/1\.1 200 /);
    const next = await requestFrom('127.0.4.101', `${site.url}/`);
    assert.equal(next.status, 200);
  });
});
