// route: where a queue lives on the three-node cluster, as the cluster itself says: the slot and its
// owner (CLUSTER SHARDS), the MOVED a non-owner answers, an enqueue and a claim landing on one node, the
// keys without braces scattered, and the native enqueue refused by a non-owner and by the owner.

import type { Reply } from '../transitions.ts';

/** What a reader sends: a queue name (`orders` if left out). */
export interface RouteBody {
  queue?: string;
}

/** A command as it went on the wire, one word per argument. */
export type Words = string[];

export interface RouteNode {
  /** `host:port`, as MOVED names a node. */
  address: string;
  /** Inclusive slot ranges, from CLUSTER SHARDS. */
  slots: Array<[number, number]>;
  /** Its replicas (`host:port`), when the cluster has them: shown, never sent a run. */
  replicas?: string[];
}

export interface PlacedKey {
  key: string;
  slot: number;
  /** The node that serves the key's slot. */
  owner: string;
}

export interface RouteResult {
  queue: string;
  /** The queue's pending key, whose slot every key of the queue shares. */
  key: string;
  /** The slot the keyspace module computes. */
  slot: number;
  /** CLUSTER KEYSLOT of the same key, as the cluster answers it. */
  serverSlot: number;
  /** Every primary and its ranges, read live from CLUSTER SHARDS. */
  nodes: RouteNode[];
  /** The node that owns the slot. */
  owner: string;
  /** The reserve, beside every queue: its slot and owner, and whether this queue shares its slot. */
  reserve: PlacedKey & { sharesSlot: boolean };
  /** A node that does not own the slot, asked for the queue's pending key. */
  moved: { asked: string; command: Words; reply: string };
  /** One enqueue and one claim through a cluster client; each key with the node that holds it. */
  served: {
    jobId: string;
    steps: Array<{ command: Words; reply: Reply }>;
    keys: Array<{ key: string; storedOn: string }>;
    oneNode: boolean;
  };
  /** The counterfactual: the claim's keys without braces, each on its own slot. */
  scattered: {
    keys: PlacedKey[];
    /** How many nodes the keys land on. */
    nodeCount: number;
    command: Words;
    reply: string;
  };
  /** The native enqueue, sent to a non-owner and to the owner, directly. */
  native: {
    command: Words;
    nonOwner: { asked: string; reply: string };
    owner: { asked: string; reply: string };
    /** The call's keys on the owner, before and after: none, so nothing was written. */
    keysBefore: number;
    keysAfter: number;
    /** The owner's count of keys in the slot, before and after (CLUSTER COUNTKEYSINSLOT). */
    slotKeysBefore: number;
    slotKeysAfter: number;
    written: boolean;
  };
  /** Keys of the queue still on the cluster after the run's clean-up: always 0. */
  leftBehind: number;
}
