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
    hashtag: decoder.decode(tag),
    crc16: checksum,
    slot: checksum % SLOT_COUNT,
  };
}
