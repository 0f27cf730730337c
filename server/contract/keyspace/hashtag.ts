// The hashtag and the slot: which of the 16,384 cluster slots a key lands on.

import { utf8 } from './bytes.ts';

export const SLOT_COUNT = 16384;

const OPEN = 0x7b; // '{'
const CLOSE = 0x7d; // '}'

/** CRC16-XMODEM: polynomial 0x1021, initial value 0, no reflection. crc16("123456789") = 0x31C3. */
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** Where the hashed bytes start and end: between the first '{' and the first '}' after it, if non-empty. */
export function hashtagRange(bytes: Uint8Array): { start: number; end: number; tagged: boolean } {
  const open = bytes.indexOf(OPEN);
  if (open >= 0) {
    const close = bytes.indexOf(CLOSE, open + 1);
    if (close > open + 1) return { start: open + 1, end: close, tagged: true };
  }
  return { start: 0, end: bytes.length, tagged: false };
}

/** The bytes that decide a key's slot. `foo{}{bar}` hashes whole; `foo{{bar}}zap` hashes `{bar`. */
export function hashtagBytes(key: string | Uint8Array): Uint8Array {
  const bytes = typeof key === 'string' ? utf8(key) : key;
  const { start, end } = hashtagRange(bytes);
  return bytes.subarray(start, end);
}

/** The hashtag as text. Braces are ASCII, so the cut never splits a UTF-8 character. */
export function hashtag(key: string): string {
  return new TextDecoder().decode(hashtagBytes(key));
}

/** slot(key) = CRC16-XMODEM(hashtag(key)) mod 16384. */
export function slot(key: string | Uint8Array): number {
  return crc16(hashtagBytes(key)) % SLOT_COUNT;
}
