// A reader who shares an address with a flood is served: 3,000 half-open connections from one
// address, each trickling a header line every 200 ms and never ending its headers, opened at a bounded
// pace over about ten seconds (so about 64 are ever held by the site, at its default cap of 64 per
// address); meanwhile a fresh reader from that same address asks for a page, five times, and is
// answered each time within 2 s (a generous bound: the behaviour is "served", not a timing). With the
// flood done, the site is left with none of the flood's connections. Loopback only.

import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, it } from 'node:test';
import { startSite, type Site } from '../../scripts/site.ts';
import { requestFrom } from '../support/from-address.ts';
import { HALF_OPEN } from '../support/held-connection.ts';
import { boundedTeardown } from '../support/teardown.ts';

const ADDRESS = '127.0.8.1';
const FLOOD = 3000;
/** Connections opened per 10 ms tick: 3,000 in about ten seconds. */
const PER_TICK = 3;
const SERVED_WITHIN_MS = 2000;

let site: Site;
const sockets = new Set<Socket>();
before(async () => {
  site = await startSite();
});
after(() =>
  boundedTeardown(async () => {
    sockets.forEach((socket) => socket.destroy());
    await site?.close();
  }),
);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it(`a reader from an address with ${FLOOD} half-open connections is served within ${SERVED_WITHIN_MS} ms`, async () => {
  const port = Number(new URL(site.url).port);
  let opened = 0;
  let open = 0;
  let mostOpen = 0;
  let answered = 0;
  const floodOne = () => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: ADDRESS });
    sockets.add(socket);
    socket.on('error', () => {});
    let trickle: NodeJS.Timeout | undefined;
    socket.once('connect', () => {
      opened += 1;
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      socket.write(HALF_OPEN);
      trickle = setInterval(() => socket.write(`X-Slow-${opened}: a\r\n`), 200);
    });
    socket.once('data', () => (answered += 1));
    socket.once('close', () => {
      if (trickle) ((open -= 1), clearInterval(trickle));
      sockets.delete(socket);
    });
  };
  const flooding = (async () => {
    for (let i = 0; i < FLOOD; i += PER_TICK) {
      for (let j = 0; j < PER_TICK; j += 1) floodOne();
      await pause(10);
    }
  })();

  await pause(1000); // the flood holds the address's every place by now
  const times: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    const page = await requestFrom(ADDRESS, `${site.url}/`);
    times.push(performance.now() - started);
    assert.equal(page.status, 200, `try ${i + 1}`);
    await pause(500);
  }
  await flooding;
  assert.ok(opened >= FLOOD * 0.9, `the flood opened ${opened} of ${FLOOD}`);
  assert.ok(
    times.every((ms) => ms <= SERVED_WITHIN_MS),
    `each try answered within ${SERVED_WITHIN_MS} ms: ${times.map((ms) => ms.toFixed(0)).join(', ')} ms`,
  );
  // The site held the flood to its own places: each new one took its address's oldest one's place.
  await pause(500);
  assert.ok(open <= 64 + PER_TICK * 10, `the flood holds ${open} open (at most ${mostOpen} at once)`);
  assert.equal(answered, 0, 'no connection of the flood was answered (shed, or still trickling)');
});
