// Who a request is from, for the connection caps and the rate limit. The socket's peer address,
// unless that peer is a proxy named in TRUST_PROXY: then the nearest address in `x-forwarded-for` that
// is not one of those proxies. A forwarding header from anyone else is ignored (anyone can send one).

import type { IncomingMessage } from 'node:http';

export function normalize(address: string | undefined): string {
  if (!address) return 'unknown';
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  // One IPv6 host holds a whole /64 (SLAAC needs it): count the /64, not each address in it. Not the
  // /56 a home line is often given: carriers hand each phone a /64 of a shared pool, so a /56 could be
  // 256 readers on one share. An attacker's /56 is 256 addresses to the caps, and the overall cap sheds
  // from the address holding most (connection-cap.ts), so many of them cannot keep a reader out.
  if (plain.includes(':')) return plain.split(':').slice(0, 4).join(':') + '::/64';
  return plain;
}

export function peerOf(request: IncomingMessage, trustProxy: readonly string[]): string {
  const direct = request.socket.remoteAddress;
  if (trustProxy.length === 0 || !trustProxy.includes(normalizeRaw(direct))) return normalize(direct);
  const forwarded = String(request.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i -= 1) {
    if (!trustProxy.includes(normalizeRaw(forwarded[i]))) return normalize(forwarded[i]);
  }
  return normalize(direct);
}

function normalizeRaw(address: string | undefined): string {
  return address?.startsWith('::ffff:') ? address.slice(7) : (address ?? '');
}
