// A key as the reader sees it in the explorer: its segments with their bytes, its hashtag and its slot.

import { crc16, hashtagBytes, SLOT_COUNT, splitQueueKey, utf8 } from '../keyspace/index.ts';

export interface Segment {
  part: 'prefix' | 'open' | 'queue' | 'close' | 'type' | 'key';
  text: string;
  /** The segment's bytes in hex, as they go on the wire. */
  hex: string;
}

export interface KeyView {
  key: string;
  bytes: number;
  segments: Segment[];
  hashtag: string;
  crc16: number;
  slot: number;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const decoder = new TextDecoder();
/** '}': where a queue key's name ends. */
const CLOSE = 0x7d;

/** Bytes as the explorer shows them: two hex digits each, spaced. */
function hex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 1) out += i === 0 ? HEX[bytes[i]!] : ` ${HEX[bytes[i]!]}`;
  return out;
}

/**
 * Views already made, by key: a queue's keys come back run after run, and a view is a pure function of
 * its key. Bounded (emptied when full); a view is shared, so it is never changed after it is made.
 */
const views = new Map<string, Readonly<KeyView>>();
const VIEWS_KEPT = 4096;

export function viewKey(key: string): KeyView {
  let view = views.get(key);
  if (!view) {
    if (views.size >= VIEWS_KEPT) views.clear();
    view = makeView(key);
    views.set(key, view);
  }
  return view;
}

function makeView(key: string): KeyView {
  // The key encoded once, each segment's bytes cut from it (a new view took 11 µs with an encoding per
  // segment, 4.8 so: bench/key-view.ts): the prefix and '{' are ASCII, and the queue ends at the first
  // '}' byte, which no multi-byte UTF-8 character contains.
  const bytes = utf8(key);
  const cut = (part: Segment['part'], text: string, start: number, end: number): Segment => ({
    part,
    text,
    hex: hex(bytes.subarray(start, end)),
  });
  const parts = splitQueueKey(key);
  const open = parts?.prefix.length ?? 0;
  const close = parts ? bytes.indexOf(CLOSE, open + 1) : 0;
  const segments = parts
    ? [
        cut('prefix', parts.prefix, 0, open),
        cut('open', parts.open, open, open + 1),
        cut('queue', parts.queue, open + 1, close),
        cut('close', parts.close, close, close + 2),
        cut('type', parts.type, close + 2, bytes.length),
      ]
    : [cut('key', key, 0, bytes.length)];
  const tag = hashtagBytes(bytes);
  const checksum = crc16(tag);
  return {
    key,
    bytes: bytes.length,
    segments,
    hashtag: decoder.decode(tag),
    crc16: checksum,
    slot: checksum % SLOT_COUNT,
  };
}
