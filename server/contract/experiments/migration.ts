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

/** How many jobs the queue holds when its slot moves: the reader picks one; both modes move the same. */
export const MIGRATION_SIZES = [1_000, 20_000] as const;
export type MigrationSize = (typeof MIGRATION_SIZES)[number];
export const DEFAULT_MIGRATION_SIZE: MigrationSize = 1_000;

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
  /**
   * Milliseconds since the move began (its first migration command was sent), on the server's clock,
   * when the probe was sent (atomic mode, while the slot moved: when it was first sent).
   */
  atMs: number;
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
  /** Milliseconds since the move began, when the command was sent. */
  atMs: number;
}

export interface MigrationPhase {
  /** e.g. `stable`, `importing`, `migrating`, `split`, `moved`, `owner`, `back`. */
  name: string;
  /** One line saying what this phase is. */
  summary: string;
  /** Milliseconds since the move began, when this phase was reached (negative before the first command). */
  atMs: number;
  /** The node that owns the slot in this phase (`host:port`). */
  owner: string;
  /** Nodes with the slot open in this phase. */
  open: Array<{ node: string; state: 'migrating' | 'importing' }>;
  /** The queue's keys on each side, read live (the site's own keys never shown). */
  keys: { source: string[]; target: string[] };
  /**
   * How many keys of the queue each node holds in this phase, by address: read from every node with
   * CLUSTER COUNTKEYSINSLOT (the run's slot holds the queue's keys alone), so a queue of thousands is seen
   * leaving one node and arriving on the other.
   */
  keysByNode: Record<string, number>;
  /**
   * The phase's replies counted by kind, per node asked (every node listed, 0 where none): a probe the
   * atomic mode sent again and again counts each reply, e.g. served 11 and redirected 1.
   */
  repliesByNode: Record<string, ReplyCounts>;
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

/** One command the worker sent while the slot moved: one claim attempt, on one node, with its reply. */
export interface WorkerClaim {
  /** Milliseconds since the move began. */
  atMs: number;
  /** The node the client sent it to (`host:port`). */
  node: string;
  reply: ProbeReply;
}

/**
 * A queue's worker throughout the move: a real iovalkey Cluster client claiming in a loop, as a queue's
 * workers would. Every attempt is on the wire, so TRYAGAIN retries and redirections are each a claim.
 */
export interface WorkerTimeline {
  /** The client's settings that decide when it gives up (e.g. maxRedirections, retryDelayOnTryAgain). */
  settings: Record<string, number>;
  claims: WorkerClaim[];
  /** The longest stretch, in ms, between two served claims (or the move's start/end) with none served. */
  longestWaitMs: number;
  /** Whether the client gave up on a claim (its last error, if it did, is the claim's reply). */
  gaveUp: boolean;
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
  /** The jobs enqueued before the move, oldest first (the first few; `jobCount` counts them all). */
  jobs: string[];
  /** The queue's size when the move began: one of MIGRATION_SIZES, the same in both modes. */
  jobCount: number;
  /** From the move's first migration command until every node named the new owner. */
  moveMs: number;
  /** The queue's worker, claiming throughout the move. */
  worker: WorkerTimeline;
  phases: MigrationPhase[];
  client: ClientRetries;
  /** Every node's view read back at the end: one owner, nothing open. */
  clean: boolean;
  leftBehind: number;
  /** Atomic mode only. */
  atomic?: AtomicFigures;
}

/**
 * What a reply is, in the one vocabulary every view and the console use: `served` (a value), `refused`
 * (an error reply such as EMQWIRE, EMQKEY, CROSSSLOT, ERR …), `redirected` (MOVED, ASK), `retry`
 * (TRYAGAIN). A badge shows this word, never the reply's own first word again.
 */
export type ReplyKind = 'served' | 'refused' | 'redirected' | 'retry';

/** Every kind of reply, in the order a reader meets them in a move. */
export const REPLY_KINDS: readonly ReplyKind[] = ['served', 'refused', 'retry', 'redirected'];

/** How many replies of each kind. */
export type ReplyCounts = Record<ReplyKind, number>;

export function replyKind(reply: ProbeReply): ReplyKind {
  if (!isErrorReply(reply)) return 'served';
  const word = reply.error.split(' ', 1)[0]!;
  if (word === 'MOVED' || word === 'ASK') return 'redirected';
  if (word === 'TRYAGAIN') return 'retry';
  return 'refused';
}

/** Whether the reply is an error reply. */
export function isErrorReply(reply: ProbeReply): reply is { error: string } {
  return reply !== null && typeof reply === 'object' && !Array.isArray(reply);
}
