// The reserve: `{emq}:` keys live beside every queue and belong to none. A reserve key starts with '{',
// a queue key with 'e', so no queue name can ever produce one; `{emq}` is its own hashtag (slot 9051).

import { slot } from './hashtag.ts';

export const RESERVE_BASE = '{emq}:';

/** The wire identity a scripted (wire 4) connector claims. */
export const WIRE4_IDENTITY = 'echomq:4.0.0';
/** The wire identity installed on a native node and only read there (wire 6). */
export const WIRE6_IDENTITY = 'echomq:6.0.0';

export function reserve(suffix: string): string {
  return RESERVE_BASE + suffix;
}

/** `{emq}:version` — holds the wire identity `echomq:MAJOR.MINOR.PATCH`. */
export function versionKey(): string {
  return reserve('version');
}

/** The reserve's slot: `slot('{emq}:version')`, the same for every reserve key. */
export function reserveSlot(): number {
  return slot(versionKey());
}
