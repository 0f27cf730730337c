// The per-address connection cap, at the limit and one past it: with MAX_CONNECTIONS_PER_ADDRESS=4,
// one address holds four open connections; its fifth is closed at once, unanswered; another address is
// served meanwhile; and a connection given back makes room for the next one.

import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, it } from 'node:test';
import { startSite, type Site } from '../../scripts/site.ts';
import { requestFrom } from '../support/from-address.ts';
import { holdConnection, type Held } from '../support/held-connection.ts';
import { boundedTeardown } from '../support/teardown.ts';

const CAP = 4;
let site: Site;
const sockets: Socket[] = [];
before(async () => {
  site = await startSite({ MAX_CONNECTIONS_PER_ADDRESS: String(CAP) });
});
after(() =>
  boundedTeardown(async () => {
    sockets.forEach((socket) => socket.destroy());
    await site?.close();
  }),
);

/** A connection from `localAddress` that starts a request and never finishes its headers. */
const hold = (localAddress: string) => holdConnection(site.url, localAddress, sockets);

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

it(`holds ${CAP} connections from one address and closes the ${CAP + 1}th unanswered`, async () => {
  const held: Held[] = [];
  for (let i = 0; i < CAP; i += 1) held.push(await hold('127.0.0.3'));
  await settle();
  assert.deepEqual(
    held.map((h) => h.isClosed()),
    Array(CAP).fill(false),
    'the first four are held',
  );

  let answered = '';
  const past = await hold('127.0.0.3');
  past.socket.on('data', (chunk) => (answered += chunk));
  await Promise.race([past.closed, settle().then(settle)]);
  assert.equal(past.isClosed(), true, 'the fifth is closed at once');
  assert.equal(answered, '', 'and never answered');

  // Another address is a reader of its own, untouched by this one's cap.
  assert.equal((await requestFrom('127.0.0.4', `${site.url}/`)).status, 200);

  // One connection given back makes room: the address is served again.
  held[0]!.socket.destroy();
  await held[0]!.closed;
  await settle();
  assert.equal((await requestFrom('127.0.0.3', `${site.url}/`)).status, 200);
  assert.equal(
    held.slice(1).some((h) => h.isClosed()),
    false,
    'the other three are still held',
  );
});
