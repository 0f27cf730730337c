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

/** Bytes as the explorer shows them: two hex digits each, spaced. */
function hex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 1) out += i === 0 ? HEX[bytes[i]!] : ` ${HEX[bytes[i]!]}`;
  return out;
}

function segment(part: Segment['part'], text: string): Segment {
  return { part, text, hex: hex(utf8(text)) };
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
  const parts = splitQueueKey(key);
  const segments = parts
    ? [
        segment('prefix', parts.prefix),
        segment('open', parts.open),
        segment('queue', parts.queue),
        segment('close', parts.close),
        segment('type', parts.type),
      ]
    : [segment('key', key)];
  const tag = hashtagBytes(key);
  const checksum = crc16(tag);
  return {
    key,
    bytes: utf8(key).length,
    segments,
    hashtag: decoder.decode(tag),
    crc16: checksum,
    slot: checksum % SLOT_COUNT,
  };
}
