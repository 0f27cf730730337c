// keys: what a reader sends and what comes back — every key of a queue, split into segments, read back
// after a real enqueue; or the admission refusal, with the server's count of the commands that reached it.

import type { DumpedValue } from '../dump.ts';
import type { WireCommand, WireProof } from '../wire/types.ts';
import type { KeyView } from './segments.ts';

/** What a reader sends. */
export interface KeysBody {
  queue: string;
  /** A branded job id of the reader's own; a fresh one when left out. */
  id?: string | undefined;
}

export interface KeysRefusal {
  /** The host refuses before the wire (admission, id shape); the server refuses an id's kind. */
  by: 'host' | 'server';
  code: string;
  message: string;
  offset: number | null;
}

/** A key and what it is (`pending`, `job row`, `row base`, `reserve`…). */
export type TypedKey = KeyView & { type: string };

export type KeysResult =
  | { queue: string; accepted: false; refusal: KeysRefusal; wire: WireCommand[]; proof: WireProof }
  | {
      queue: string;
      accepted: true;
      id: string;
      keys: TypedKey[];
      rowBase: TypedKey;
      reserve: TypedKey;
      /** What the server holds after the enqueue: the keys the grammar built, nothing else. */
      live: Array<{ key: string; type: DumpedValue['type']; value: DumpedValue['value'] }>;
      /** The commands the enqueue sent, with the server's proof of them. */
      wire: WireCommand[];
      proof: WireProof;
    };
