// console: what a reader sends (redis-cli lines, run on a fresh keyspace or, reading only, on the cluster)
// and what comes back: each line's reply or error, the slot of every key it named, its wire, the keyspace.

import type { Node } from '../console/allow-list.ts';
import type { CourseSection } from '../console/error-course.ts';
import type { DumpedValue } from '../dump.ts';
import type { WireCommand, WireProof, WireReply } from '../wire/types.ts';

/** What a reader sends: up to CONSOLE_LIMITS.lines lines, on `standalone` (the default) or the `cluster`. */
export interface ConsoleBody {
  lines: string[];
  node?: Node;
}

export interface ConsoleError {
  /** The error's class (first word): EMQKEY, CROSSSLOT…, or NOT_ALLOWED for a line the console refused. */
  code: string;
  message: string;
  /** Where the course explains it. */
  learn?: CourseSection;
}

export interface ConsoleLine {
  input: string;
  command: string;
  node: Node;
  /** On the cluster: the node (`host:port`) whose reply the line got, after any MOVED or ASK. */
  answeredBy?: string;
  /** Each key the line names, with its slot (CRC16 of its hashtag mod 16384). */
  keys: Array<{ key: string; slot: number }>;
  outcome: 'reply' | 'error' | 'refused';
  reply?: WireReply;
  error?: ConsoleError;
  /** The reply or error in one line of plain words, where redis-cli's print alone leaves a reader guessing. */
  reading?: string;
  /** What went over the wire for this line, as the server received it; empty for a refused line. */
  wire: WireCommand[];
  proof: WireProof;
}

export interface ConsoleResult {
  node: Node;
  /** The wire identity the run installed on its keyspace (native sandboxes), as an operator would. */
  identity: string | null;
  lines: ConsoleLine[];
  /** The keyspace after, each key with its slot; none on the cluster, which is every reader's. */
  keyspace: Array<{
    key: string;
    slot: number;
    type: DumpedValue['type'];
    value: DumpedValue['value'];
  }> | null;
  /** Every form the console runs. */
  allowed: readonly string[];
}
