// The answer of the slot migration experiment (POST /api/experiments/reshard), shared by every way the
// experiment can move a slot (`mode`) and by the page that draws it: a migration is a list of phases,
// each with the slot's owner, where the queue's keys are, the migration commands that led to it, and
// probes — a command sent to one node, and the reply exactly as that node sent it. Types only (and the
// list of modes), so the browser can import it.

/**
 * How the slot is moved. `keys`: the classic steps (IMPORTING, MIGRATING, MIGRATE … KEYS, NODE), on
 * Valkey 8. `atomic`: one CLUSTER MIGRATESLOTS, on the Valkey 9.1 cluster.
 */
export const MIGRATION_MODES = ['keys', 'atomic'] as const;
export type MigrationMode = (typeof MIGRATION_MODES)[number];

/** A reply as the server sent it: a value, or an error reply's exact text. */
export type ProbeReply = string | number | null | ProbeReply[] | { error: string };

export interface MigrationProbe {
  /** What the probe shows, in words. */
  label: string;
  /** The command, one word per argument. */
  command: string[];
  /** True when `ASKING` went first, on the same connection. */
  asking?: boolean;
  /** The node asked (`host:port`). */
  node: string;
  reply: ProbeReply;
  /** Atomic mode, while the slot moved: how many times the node served it before it redirected. */
  served?: number;
  /** Atomic mode, while the slot moved: the first reply (the last is `reply`). */
  firstReply?: ProbeReply;
}

/** A state CLUSTER GETSLOTMIGRATIONS reported, when it was first seen. */
export interface SlotMigrationState {
  /** Milliseconds since CLUSTER MIGRATESLOTS was sent. */
  atMs: number;
  node: string;
  /** EXPORT on the source, IMPORT on the target. */
  operation: string;
  state: string;
}

/** What only the atomic mode has: the queue's size, the migration's states, how long it took. */
export interface AtomicFigures {
  /** Jobs put in the queue before the move (`jobs` lists the first few). */
  jobCount: number;
  states: SlotMigrationState[];
  /** From MIGRATESLOTS until every node named the new owner. */
  moveMs: number;
  /** Keys in the slot: on the source before, on the target after (plus the probes' one new row). */
  keys: { before: number; after: number; expected: number; leftOnSource: number; together: boolean };
  /** The move back. */
  backMs: number;
}

/** One command of the migration itself, sent as the admin. */
export interface MigrationCommand {
  node: string;
  command: string[];
  reply: ProbeReply;
}

export interface MigrationPhase {
  /** e.g. `stable`, `importing`, `migrating`, `split`, `moved`, `owner`, `back`. */
  name: string;
  /** One line saying what this phase is. */
  summary: string;
  /** The node that owns the slot in this phase (`host:port`). */
  owner: string;
  /** Nodes with the slot open in this phase. */
  open: Array<{ node: string; state: 'migrating' | 'importing' }>;
  /** The queue's keys on each side, read live (the site's own keys never shown). */
  keys: { source: string[]; target: string[] };
  /** The migration commands sent since the previous phase, in order. */
  steps: MigrationCommand[];
  probes: MigrationProbe[];
}

export interface MigrationNode {
  /** `node 1`, `node 2`, … in slot order, as the node map names them. */
  name: string;
  address: string;
  id: string;
}

/** What a cluster client did with a claim sent while the slot moved: every command it wrote, per node. */
export interface ClientRetries {
  command: string[];
  wire: Array<{ node: string; line: string; reply: ProbeReply }>;
  reply: ProbeReply;
}

export interface MigrationResult {
  mode: MigrationMode;
  /** The Valkey version of the nodes that ran it, e.g. "8.0.1". */
  server: string;
  queue: string;
  slot: number;
  nodes: MigrationNode[];
  source: string;
  target: string;
  /** The jobs enqueued before the move, oldest first. */
  jobs: string[];
  phases: MigrationPhase[];
  client: ClientRetries;
  /** Every node's view read back at the end: one owner, nothing open. */
  clean: boolean;
  leftBehind: number;
  /** Atomic mode only. */
  atomic?: AtomicFigures;
}

/** A reply as one line: an error reply's exact text, or the value as JSON. */
export function replyLine(reply: ProbeReply): string {
  if (isErrorReply(reply)) return reply.error;
  return JSON.stringify(reply);
}

/** Whether the reply is an error reply. */
export function isErrorReply(reply: ProbeReply): reply is { error: string } {
  return reply !== null && typeof reply === 'object' && !Array.isArray(reply);
}
