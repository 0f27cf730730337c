// layout: a native call whose declared keys a reader may edit, and each node's answer to it: the exact
// call accepted, one changed byte refused with EMQKEY (where), the cluster's owner refusing with EMQWIRE.

import type { CoreTransition } from '../transitions.ts';
import type { WireCommand, WireProof } from '../wire/types.ts';

/** What a reader sends; every field has a default (enqueue on `orders`, a fresh job id, the exact keys). */
export interface LayoutBody {
  verb?: CoreTransition;
  queue?: string;
  /** The job id of the exact call; fixed by the page so that an edit changes only what the reader changed. */
  id?: string;
  keys?: string[];
}

/** Where an EMQKEY refusal says the keys differ. */
export interface LayoutRefusal {
  position: number | null;
  offset: number | null;
  expected: string | null;
}

/** A node's answer to the call: accepted with its reply, or refused (with where, for an EMQKEY). */
export type LayoutVerdict =
  | { accepted: true; reply: unknown; keyspaceUnchanged?: boolean }
  | ({
      accepted: false;
      error: string;
      errorClass: string;
      keyspaceUnchanged?: boolean;
    } & Partial<LayoutRefusal>);

export type LayoutResult =
  | { available: false; message: string }
  | {
      available: true;
      verb: CoreTransition;
      id: string;
      command: string;
      expectedKeys: string[];
      keys: string[];
      args: string[];
      edited: boolean;
      /** The call on a standalone node, after the calls that put a job where the verb finds one. */
      standalone: LayoutVerdict & {
        keyspaceUnchanged: boolean;
        setupWire: WireCommand[];
        wire: WireCommand[];
        proof: WireProof;
      };
      /** The same call through a cluster client, to the node that owns its slot. */
      cluster: LayoutVerdict & { wire: WireCommand[]; proof: WireProof };
    };
