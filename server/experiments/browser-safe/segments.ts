// A key as the reader sees it in the explorer: its segments with their bytes, its hashtag and its slot.

import { crc16, hashtagBytes, SLOT_COUNT, splitQueueKey, utf8 } from '../../keyspace/index.ts';

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

function segment(part: Segment['part'], text: string): Segment {
  return { part, text, hex: [...utf8(text)].map((byte) => byte.toString(16).padStart(2, '0')).join(' ') };
}

export function viewKey(key: string): KeyView {
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
    hashtag: new TextDecoder().decode(tag),
    crc16: checksum,
    slot: checksum % SLOT_COUNT,
  };
}
