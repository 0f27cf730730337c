// The one table of experiments: every experiment a reader may run, in the order the catalogue lists them,
// with what the reader sends and gets back, what the catalogue says of it, and where the explorer shows
// it. Every other list of experiments is read from here — the server's half (server/api/registry.ts:
// parse, run, kind) is keyed by the same names, the explorer's parts, components and scripts, the
// markdown twins, llms.txt and the API listing — and tests/unit/experiment-table.test.ts fails when
// another list is kept by hand.

import { ALLOWED } from './console/allow-list.ts';
import type { ConsoleBody, ConsoleResult } from './experiments/console.ts';
import type { KeysBody, KeysResult } from './experiments/keys.ts';
import type { LayoutBody, LayoutResult } from './experiments/layout.ts';
import { DEFAULT_MIGRATION_SIZE, MIGRATION_MODES, MIGRATION_SIZES } from './experiments/migration.ts';
import type { ReserveBody, ReserveResult } from './experiments/reserve.ts';
import type { ReshardBody, ReshardResult } from './experiments/reshard.ts';
import type { RouteBody, RouteResult } from './experiments/route.ts';
import type { SlotBody, SlotResult } from './experiments/slot.ts';
import type { TwoExecutorsBody, TwoExecutorsResult } from './experiments/two-executors.ts';
import { CONSOLE_CAPS, CONSOLE_LIMITS, LAYOUT_KEYS, LIMITS } from './limits.ts';

/** The explorer's parts, in the course's order: each course page places the explorer of one. */
export const PARTS = ['grammar', 'hashtag', 'reserve', 'module'] as const;
export type Part = (typeof PARTS)[number];

interface Row<Body, Result> {
  summary: string;
  /** The fields it takes, for the catalogue. */
  input: Record<string, string>;
  example: Body;
  /** A body cap of its own, when the experiment takes more than LIMITS.bodyBytes. */
  bodyBytes?: number;
  /** The explorer parts that show it, in the table's order; none for the console, on every page. */
  parts: readonly Part[];
  /** Its view's label where the module's explorer switches between the parts' experiments. */
  view?: string;
  /**
   * The experiment whose component runs it too, when it has none of its own. Every other experiment of
   * a part has `<Name>Experiment.astro` and `<name>-experiment.ts` in src/components/explorer/.
   */
  shownBy?: string;
  /** Never set: carries the body and the result's types, so `run('keys', …)` is checked for both. */
  types?: { body: Body; result: Result };
}

const row = <Body, Result>(definition: Row<Body, Result>) => definition;

export const EXPERIMENT_TABLE = {
  keys: row<KeysBody, KeysResult>({
    parts: ['grammar', 'module'],
    view: 'The grammar: every key',
    example: { queue: 'orders' },
    input: {
      queue: `string, 1–${LIMITS.queueBytes} bytes: the queue name`,
      id: 'optional branded job id (e.g. JOB0Nb1VTbfnu4)',
    },
    summary:
      'Every key of a queue, split into segments, read back from a live keyspace after a real enqueue; or the admission refusal, with the server’s count of commands that reached it.',
  }),
  slot: row<SlotBody, SlotResult>({
    parts: ['hashtag', 'module'],
    view: 'The hashtag: the slot',
    example: { queue: 'orders', other: 'fills' },
    input: {
      key: `any key up to ${LIMITS.keyBytes} bytes — or —`,
      queue: `a queue name up to ${LIMITS.queueBytes} bytes`,
      other: 'optional second queue for the CROSSSLOT call (default fills)',
    },
    summary:
      'Hashtag, CRC16 and slot of a key or a queue, confirmed by the cluster node’s CLUSTER KEYSLOT; for a queue, a live claim mixing two queues that the cluster refuses with CROSSSLOT.',
  }),
  layout: row<LayoutBody, LayoutResult>({
    parts: ['grammar'],
    example: {
      verb: 'enqueue',
      queue: 'orders',
      keys: ['emq:{orders}:job:JOB0Nb1VTbfnu4', 'emq:{orderz}:pending'],
    },
    input: {
      verb: 'enqueue | schedule | claim | complete | retry | promote | reap (default enqueue)',
      queue: 'queue name for the exact call (default orders)',
      id: 'optional branded job id for the exact call (default: a fresh one)',
      keys: `optional array of up to ${LAYOUT_KEYS} keys (${LIMITS.keyBytes} bytes each) replacing the declared keys`,
    },
    summary:
      'A native EMQ.* call whose declared keys you may edit: the exact call is accepted, one changed byte is refused with EMQKEY (position and offset), and on the cluster the node that owns the keys’ slot refuses with EMQWIRE.',
  }),
  route: row<RouteBody, RouteResult>({
    parts: ['hashtag'],
    example: { queue: 'orders' },
    input: { queue: `a queue name up to ${LIMITS.queueBytes} bytes (default orders)` },
    summary:
      'Where a queue lives on the three-node cluster: its slot and the node that owns it (CLUSTER SHARDS, live), the exact MOVED another node answers, an enqueue and a claim through a cluster client landing on one node, the same keys without braces scattered (CROSSSLOT), and EMQ.ENQUEUE answered MOVED by a non-owner and EMQWIRE by the owner, writing nothing.',
  }),
  reshard: row<ReshardBody, ReshardResult>({
    parts: ['hashtag'],
    shownBy: 'route',
    example: { queue: 'orders', mode: 'keys', size: 1000 },
    input: {
      queue: `a queue name up to ${LIMITS.queueBytes} bytes (default orders)`,
      mode: `how the slot moves: ${MIGRATION_MODES.join(' | ')} (default keys: Valkey 8, key by key; atomic: Valkey 9.1, CLUSTER MIGRATESLOTS)`,
      size: `how many jobs the queue holds when it moves: ${MIGRATION_SIZES.join(' | ')} (default ${DEFAULT_MIGRATION_SIZE}; both modes move the same)`,
    },
    summary:
      'The queue’s slot migrated live, phase by phase (mode keys: SETSLOT IMPORTING, SETSLOT MIGRATING, MIGRATE the oldest row alone so the queue is split across two nodes, then the rest by MIGRATE … KEYS, SETSLOT NODE on every node), with probes at each phase showing each node’s exact reply (ASK only from the migrating owner, MOVED from a node that does not serve the slot, TRYAGAIN for the claim on both sides), what a cluster client does with its claim meanwhile, and the claim served by the new owner; then the slot goes back. Every phase, command and probe has atMs (ms since the move’s first command); a worker claims throughout each move (worker: settings, claims, longestWaitMs, gaveUp). One migration at a time in the whole sandbox. Mode atomic runs on a second three-node cluster of Valkey 9.1 (trafikey loaded, opted in): one CLUSTER MIGRATESLOTS on a queue of the same size, the CLUSTER GETSLOTMIGRATIONS states as they changed, the same probes sent to the source again and again — each served, then MOVED, never ASK or TRYAGAIN — a cluster client’s claims served then redirected once, every key on the new owner; then back. While Valkey 9.1 is being built, its cluster starting, or absent, mode atomic answers 503 VALKEY9_BUILDING, VALKEY9_STARTING or VALKEY9_UNAVAILABLE.',
  }),
  reserve: row<ReserveBody, ReserveResult>({
    parts: ['reserve', 'module'],
    view: 'The reserve',
    example: {},
    input: {},
    summary:
      'On fresh keyspaces: a wire 4 connector claims {emq}:version; a native write refuses it; a wire 6 connector refuses an uninstalled identity; the operator installs it; the wire 6 connector reads it.',
  }),
  'two-executors': row<TwoExecutorsBody, TwoExecutorsResult>({
    parts: ['module'],
    example: { steps: ['enqueue', 'claim', 'complete'] },
    input: {
      steps: `optional array (up to ${LIMITS.steps}) of enqueue | schedule | claim | complete | retry | promote | reap | duplicate | stale`,
      queue: 'optional queue name (default orders)',
    },
    summary:
      'One sequence of transitions through the scripted executor and the native module side by side, with replies and keyspaces after each step and the verdict that they are the same.',
  }),
  console: row<ConsoleBody, ConsoleResult>({
    parts: [],
    example: {
      lines: [
        'EMQ.ENQUEUE 2 emq:{orders}:job:JOB0Nb1VTbfnu4 emq:{orders}:pending JOB0Nb1VTbfnu4 hello',
        'SCRIPT claim 3 emq:{orders}:pending emq:{orders}:active emq:{orders}:job: 30000',
        'CLUSTER KEYSLOT emq:{orders}:pending',
      ],
    },
    input: {
      lines: `array of 1–${CONSOLE_LIMITS.lines} strings, each at most ${CONSOLE_LIMITS.lineBytes} bytes, split by redis-cli's quoting rules`,
      node: `optional "standalone" (default: a fresh keyspace of its own) or "cluster" (the three-node cluster through a cluster client: only what writes nothing and names its keys, in the turn of at most ${CONSOLE_CAPS.clusterSlots} slots, SCAN and DBSIZE refused; with the node that answered)`,
      allowed: ALLOWED.join('; '),
    },
    bodyBytes: CONSOLE_LIMITS.bodyBytes,
    summary: `Up to ${CONSOLE_LIMITS.lines} command lines, typed as into redis-cli, run in order on a fresh keyspace of the standalone node with the native identity installed: each line’s reply or error (linked to the course section that explains it), the slot of every key it named, the commands that went over the wire with the server’s own count of them, and the keyspace after. Only the allow-list runs; a refused line reaches no server.`,
  }),
};

export type ExperimentName = keyof typeof EXPERIMENT_TABLE;
type Types<N extends ExperimentName> = NonNullable<(typeof EXPERIMENT_TABLE)[N]['types']>;
/** What a reader sends to run `N`. */
export type BodyOf<N extends ExperimentName> = Types<N>['body'];
/** What a run of `N` answers, as `result`. */
export type ResultOf<N extends ExperimentName> = Types<N>['result'];

/** Every experiment's name, in the table's order. */
export const EXPERIMENT_NAMES = Object.keys(EXPERIMENT_TABLE) as ExperimentName[];

/** Whether `name` is an experiment's: what a reader asked, checked against the table. */
export function isExperimentName(name: string): name is ExperimentName {
  return Object.hasOwn(EXPERIMENT_TABLE, name);
}

/** A row of the table, whatever its types. */
export type ExperimentRow = Row<unknown, unknown>;

export function rowOf(name: ExperimentName): ExperimentRow {
  return EXPERIMENT_TABLE[name];
}

/** The experiments a part's explorer shows, in the table's order. */
export function experimentsOf(part: Part): ExperimentName[] {
  return EXPERIMENT_NAMES.filter((name) => rowOf(name).parts.includes(part));
}

/** The part a view of the module's explorer belongs to: the first of its parts that is not the module. */
export function partOfView(name: ExperimentName): Part | undefined {
  return rowOf(name).parts.find((part) => part !== 'module');
}
