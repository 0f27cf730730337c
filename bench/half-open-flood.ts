// Half-open connections from many addresses against a running site, as figures: ADDRESSES loopback
// addresses × PER_ADDRESS connections that each send part of a request header and never finish it
// (re-opened when the server closes one, as a flooder would), then a fresh reader from another address
// asks for a page TRIES times. Prints how many connections the flood held and, per try, whether the
// reader was answered within 2 s. Starts a site of its own with the default limits unless given a URL.
// READER_ADDRESS=127.0.1.2 puts the reader on the flood's first address (a school's or a NAT's reader:
// the per-address cap then sheds that address's oldest half-open connection for it).
// Usage: node bench/half-open-flood.ts [url]   (ADDRESSES=199 PER_ADDRESS=64 TRIES=40 REOPEN_MS=50
//   READER_ADDRESS=127.0.0.250)

import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { startSite, type Site } from '../scripts/site.ts';

const ADDRESSES = Number(process.env.ADDRESSES ?? 199);
const PER_ADDRESS = Number(process.env.PER_ADDRESS ?? 64);
const TRIES = Number(process.env.TRIES ?? 40);
const REOPEN_MS = Number(process.env.REOPEN_MS ?? 50);
const SERVED_WITHIN_MS = 2000;
const READER_ADDRESS = process.env.READER_ADDRESS ?? '127.0.0.250';

let site: Site | undefined;
const url = new URL(process.argv[2] ?? (site = await startSite()).url);
const port = Number(url.port);

let stopping = false;
let open = 0;
let opened = 0;

/** One flooder's connection, re-opened REOPEN_MS after the server closes it. */
function flood(localAddress: string): Promise<void> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: url.hostname, port, localAddress });
    let counted = false;
    socket.on('error', () => {});
    socket.once('connect', () => {
      counted = true;
      open += 1;
      opened += 1;
      socket.write('GET / HTTP/1.1\r\nHost: l\r\nX-Slow: ');
      resolve();
    });
    socket.once('close', () => {
      if (counted) open -= 1;
      resolve();
      if (!stopping) setTimeout(() => void flood(localAddress), REOPEN_MS).unref();
    });
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
}
const sockets = new Set<Socket>();

/** How the reader's tries that were not served ended: reset or refused, or no answer within the bound. */
const missed = { reset: 0, slow: 0, status: 0 };

/** A fresh reader's whole request: its time to an answer, or null when none came within the bound. */
function readerTry(): Promise<number | null> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      { host: url.hostname, port, path: '/', localAddress: READER_ADDRESS, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) missed.status += 1;
          resolve(res.statusCode === 200 ? performance.now() - started : null);
        });
      },
    );
    let timedOut = false;
    req.on('error', () => {
      if (!timedOut) missed.reset += 1;
      resolve(null);
    });
    req.setTimeout(SERVED_WITHIN_MS, () => {
      timedOut = true;
      missed.slow += 1;
      req.destroy();
      resolve(null);
    });
    req.end();
  });
}

const addresses = Array.from(
  { length: ADDRESSES },
  (_, i) => `127.0.${1 + Math.floor((i + 1) / 250)}.${((i + 1) % 250) + 1}`,
);
const started = performance.now();
const all = addresses.flatMap((address) => Array.from({ length: PER_ADDRESS }, () => address));
for (let i = 0; i < all.length; i += 500) await Promise.all(all.slice(i, i + 500).map(flood));
await new Promise((resolve) => setTimeout(resolve, 2000));
console.log(
  `flood: ${ADDRESSES} addresses × ${PER_ADDRESS} half-open = ${all.length} wanted; ${open} open on the flooder's side after ${((performance.now() - started) / 1000).toFixed(1)} s (${opened} opened so far)`,
);

const times: number[] = [];
let served = 0;
for (let i = 0; i < TRIES; i += 1) {
  const ms = await readerTry();
  if (ms !== null && ms <= SERVED_WITHIN_MS) ((served += 1), times.push(ms));
  await new Promise((resolve) => setTimeout(resolve, 100));
}
times.sort((a, b) => a - b);
const at = (q: number) =>
  times.length ? times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(0) : '-';
console.log(
  `fresh reader: served ${served}/${TRIES} within ${SERVED_WITHIN_MS} ms (${((100 * served) / TRIES).toFixed(0)}%); time to answer median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms; not served: ${missed.reset} reset, ${missed.slow} slower than ${SERVED_WITHIN_MS} ms, ${missed.status} answered other than 200; flood still holds ${open}, ${opened} opened in all`,
);

stopping = true;
for (const socket of sockets) socket.destroy();
await site?.close();
process.exit(0);
