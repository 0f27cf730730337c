// The one table of experiments: every experiment a reader may run, in the order the catalogue lists them,
// with what the reader sends and gets back, what the catalogue says of it, and where the explorer shows
// it. Every other list of experiments is read from here — the server's half (server/api/registry.ts:
// parse, run, kind) is keyed by the same names, the explorer's parts, components and scripts, the
// markdown twins, llms.txt, the API listing and docs/api.md's table (scripts/api-doc.ts) — and
// tests/unit/experiment-table.test.ts fails when another list is kept by hand or docs/api.md is stale.

import { allowedForms, allowedNames } from './console/commands.ts';
import { jobKey, queueKey } from './keyspace/index.ts';
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
  /** What the result holds, field by field: its cell in docs/api.md's table (node scripts/api-doc.ts). */
  result: string;
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
    result:
      'after a real enqueue: every key of the queue split into segments (`emq:`, `{`, name, `}:`, type) with their hex bytes, hashtag, CRC16 and slot; the keys the server holds (`live`); or `accepted: false` with the `refusal` (`BRACE`, `NUL`, `EMPTY_QUEUE`, `EMQKIND`…) and the `proof` (`CLIENT INFO` tot-cmds: `reached` is 0 for a host refusal)',
  }),
  slot: row<SlotBody, SlotResult>({
    parts: ['hashtag', 'module'],
    view: 'The hashtag: the slot',
    example: { queue: 'orders', other: 'fills' },
    input: {
      key: `any key up to ${LIMITS.keyBytes} bytes (or queue instead)`,
      queue: `a queue name up to ${LIMITS.queueBytes} bytes (or key instead)`,
      other: 'optional second queue for the CROSSSLOT call (default fills)',
    },
    summary:
      'Hashtag, CRC16 and slot of a key or a queue, confirmed by the cluster node’s CLUSTER KEYSLOT; for a queue, a live claim mixing two queues that the cluster refuses with CROSSSLOT.',
    result:
      "hashtag, `crc16`, `slot` and the cluster's `serverSlot` (`CLUSTER KEYSLOT`); for a queue, every key's slot, the reserve's (9051), and two claims through a cluster client: `singleQueue` (one slot, accepted) and `mixedQueues` (refused with `CROSSSLOT`)",
  }),
  layout: row<LayoutBody, LayoutResult>({
    parts: ['grammar'],
    example: {
      verb: 'enqueue',
      queue: 'orders',
      keys: [jobKey('orders', 'JOB0Nb1VTbfnu4'), queueKey('orderz', 'pending')],
    },
    input: {
      verb: 'enqueue | schedule | claim | complete | retry | promote | reap (default enqueue)',
      queue: 'queue name for the exact call (default orders)',
      id: 'optional branded job id for the exact call (default: a fresh one)',
      keys: `optional array of up to ${LAYOUT_KEYS} keys (${LIMITS.keyBytes} bytes each) replacing the declared keys`,
    },
    summary:
      'A native EMQ.* call whose declared keys you may edit: the exact call is accepted, one changed byte is refused with EMQKEY (position and offset), and on the cluster the node that owns the keys’ slot refuses with EMQWIRE.',
    result:
      'the native call on the standalone node — `accepted`, or `EMQKEY` with `position`, `offset` and `expected` key, and `keyspaceUnchanged` — and the exact call sent through a cluster client to the node that owns its slot, refused there with `EMQWIRE expected a standalone server but cluster mode is enabled`',
  }),
  route: row<RouteBody, RouteResult>({
    parts: ['hashtag'],
    example: { queue: 'orders' },
    input: { queue: `a queue name up to ${LIMITS.queueBytes} bytes (default orders)` },
    summary:
      'Where a queue lives on the three-node cluster: its slot and the node that owns it (CLUSTER SHARDS, live), the exact MOVED another node answers, an enqueue and a claim through a cluster client landing on one node, the same keys without braces scattered (CROSSSLOT), and EMQ.ENQUEUE answered MOVED by a non-owner and EMQWIRE by the owner, writing nothing.',
    result:
      "where the queue lives on the three-node cluster: `slot` and the cluster's `serverSlot`; `nodes` (each `address` and its slot ranges, from `CLUSTER SHARDS`); the `owner`; `moved` (a non-owner asked `GET emq:{q}:pending`, its `MOVED <slot> <host:port>` word for word); `served` (an enqueue and a claim through a cluster client, each key with the node that holds it — all one); `scattered` (the claim's keys without braces, each slot and owner, and the script's `CROSSSLOT` reply); `native` (`EMQ.ENQUEUE` answered `MOVED` by a non-owner and `EMQWIRE expected a standalone server but cluster mode is enabled` by the owner, keys and slot counts before and after: nothing written); `reserve` (slot 9051, its owner, `sharesSlot` for a queue such as `emq`); `leftBehind` (0)",
  }),
  reshard: row<ReshardBody, ReshardResult>({
    parts: ['hashtag'],
    shownBy: 'route',
    example: { queue: 'orders', mode: 'keys', size: 1000 },
    input: {
      queue: `a queue name up to ${LIMITS.queueBytes} bytes (default orders); a queue on the slot where the site keeps its own locks (sandbox is one) is a 400 saying so`,
      mode: `how the slot moves: ${MIGRATION_MODES.join(' | ')} (default keys: Valkey 8, key by key; atomic: Valkey 9.1, CLUSTER MIGRATESLOTS); any other value is a 400 naming these`,
      size: `how many jobs the queue holds when it moves, a JSON number: ${MIGRATION_SIZES.join(' | ')} (default ${DEFAULT_MIGRATION_SIZE}; both modes move the same); any other value is a 400 naming these`,
    },
    summary:
      'The queue’s slot migrated live, phase by phase (mode keys: SETSLOT IMPORTING, SETSLOT MIGRATING, MIGRATE the oldest row alone so the queue is split across two nodes, then the rest by MIGRATE … KEYS, SETSLOT NODE on every node), with probes at each phase showing each node’s exact reply (ASK only from the migrating owner, MOVED from a node that does not serve the slot, TRYAGAIN for the claim on both sides), what a cluster client does with its claim meanwhile, and the claim served by the new owner; then the slot goes back. Every phase, command and probe has atMs (ms since the move’s first command); a worker claims throughout each move (worker: settings, claims, longestWaitMs, gaveUp). One migration at a time in the whole sandbox. Mode atomic runs on a second three-node cluster of Valkey 9.1 (trafikey loaded, opted in): one CLUSTER MIGRATESLOTS on a queue of the same size, the CLUSTER GETSLOTMIGRATIONS states as they changed, the same probes sent to the source again and again — each served, then MOVED, never ASK or TRYAGAIN — a cluster client’s claims served then redirected once, every key on the new owner; then back. While Valkey 9.1 is being built, its cluster starting, or absent, mode atomic answers 503 VALKEY9_BUILDING, VALKEY9_STARTING or VALKEY9_UNAVAILABLE.',
    result:
      'the queue filled with `size` jobs, then its slot migrated live to the next node and back: `phases[]` in order, each with its commands and probes and every node’s reply word for word, stamped `atMs` on the server’s clock; `moveMs`, `jobCount`; `worker` (a real iovalkey `Cluster` client claiming throughout the move) and `client`; `mode`, `server` (the Valkey version), `clean`; in atomic mode, `atomic` (the `CLUSTER GETSLOTMIGRATIONS` states and where the keys are). Field by field: `MigrationResult` in server/contract/experiments/migration.ts. One reshard at a time in the sandbox, one per reader address: see the limits below',
  }),
  reserve: row<ReserveBody, ReserveResult>({
    parts: ['reserve', 'module'],
    view: 'The reserve',
    example: {},
    input: {},
    summary:
      'On fresh keyspaces: a wire 4 connector claims {emq}:version; a native write refuses it; a wire 6 connector refuses an uninstalled identity; the operator installs it; the wire 6 connector reads it.',
    result:
      'the steps on two fresh keyspaces: wire 4 claims `{emq}:version` (`GET` nil, `SET NX`, read back), a native write refused, wire 6 refuses an uninstalled identity, the operator installs it, wire 6 reads it, a native write goes through, wire 4 refuses — each with its commands, replies and the identity after',
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
    result:
      'every step through the scripted executor and the native module: both replies, both keyspaces, `same` per step and overall',
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
      allowed: `${allowedForms('standalone').join('; ')}; on "cluster", only ${allowedNames('cluster')}`,
    },
    bodyBytes: CONSOLE_LIMITS.bodyBytes,
    summary: `Up to ${CONSOLE_LIMITS.lines} command lines, typed as into redis-cli, run in order on a fresh keyspace of the standalone node with the native identity installed: each line’s reply or error (linked to the course section that explains it), the slot of every key it named, the commands that went over the wire with the server’s own count of them, and the keyspace after. Only the allow-list runs; a refused line reaches no server.`,
    result:
      'each line run in order on a fresh keyspace with the native identity installed: its `reply` or `error` (with `learn`, the course section that explains it), the `slot` of every key it named, its `wire` and `proof`; then the `keyspace` after',
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
