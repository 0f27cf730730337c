// The experiments a reader may run — these and nothing else. Each parses its input (refusing anything
// else with a clear error) before it touches the sandbox.

import { ALLOWED } from '../contract/console/allow-list.ts';
import { parseConsoleInput, runConsole } from '../experiments/console/console.ts';
import { parseKeysInput, runKeys } from '../experiments/keys.ts';
import { parseLayoutInput, runLayout } from '../experiments/layout.ts';
import { parseReserveInput, runReserve } from '../experiments/reserve.ts';
import {
  DEFAULT_MIGRATION_SIZE,
  MIGRATION_MODES,
  MIGRATION_SIZES,
} from '../contract/experiments/migration.ts';
import { parseReshardInput, runReshard } from '../experiments/reshard.ts';
import { parseRouteInput, runRoute } from '../experiments/route.ts';
import type { ExplorerRuntime } from '../explorer/runtime.ts';
import type { RunKind } from '../catalogue/run-timeout.ts';
import { parseSlotInput, runSlot } from '../experiments/slot.ts';
import { parseTwoExecutorsInput, runTwoExecutors } from '../experiments/two-executors.ts';
import { CONSOLE_CAPS, CONSOLE_LIMITS, LAYOUT_KEYS, LIMITS } from '../contract/limits.ts';

export interface Experiment<I = unknown> {
  summary: string;
  /** The fields it takes, for the catalogue. */
  input: Record<string, string>;
  example: unknown;
  /** A body cap of its own, when the experiment takes more than LIMITS.bodyBytes. */
  bodyBytes?: number;
  parse(body: unknown): I;
  run(runtime: ExplorerRuntime, input: I): Promise<unknown>;
  /** What a run of it holds, so that its TIMEOUT says what happened to that (run-timeout.ts). */
  kind(input: I): RunKind;
}

function experiment<I>(definition: Experiment<I>): Experiment {
  return definition as Experiment;
}

export const EXPERIMENTS: Record<string, Experiment> = {
  keys: experiment({
    summary:
      'Every key of a queue, split into segments, read back from a live keyspace after a real enqueue; or the admission refusal, with the server’s count of commands that reached it.',
    input: {
      queue: `string, 1–${LIMITS.queueBytes} bytes: the queue name`,
      id: 'optional branded job id (e.g. JOB0Nb1VTbfnu4)',
    },
    example: { queue: 'orders' },
    parse: parseKeysInput,
    run: runKeys,
    kind: () => 'leased',
  }),
  slot: experiment({
    summary:
      'Hashtag, CRC16 and slot of a key or a queue, confirmed by the cluster node’s CLUSTER KEYSLOT; for a queue, a live claim mixing two queues that the cluster refuses with CROSSSLOT.',
    input: {
      key: `any key up to ${LIMITS.keyBytes} bytes — or —`,
      queue: `a queue name up to ${LIMITS.queueBytes} bytes`,
      other: 'optional second queue for the CROSSSLOT call (default fills)',
    },
    example: { queue: 'orders', other: 'fills' },
    parse: parseSlotInput,
    run: runSlot,
    kind: () => 'reads',
  }),
  layout: experiment({
    summary:
      'A native EMQ.* call whose declared keys you may edit: the exact call is accepted, one changed byte is refused with EMQKEY (position and offset), and on the cluster the node that owns the keys’ slot refuses with EMQWIRE.',
    input: {
      verb: 'enqueue | schedule | claim | complete | retry | promote | reap (default enqueue)',
      queue: 'queue name for the exact call (default orders)',
      id: 'optional branded job id for the exact call (default: a fresh one)',
      keys: `optional array of up to ${LAYOUT_KEYS} keys (${LIMITS.keyBytes} bytes each) replacing the declared keys`,
    },
    example: {
      verb: 'enqueue',
      queue: 'orders',
      keys: ['emq:{orders}:job:JOB0Nb1VTbfnu4', 'emq:{orderz}:pending'],
    },
    parse: parseLayoutInput,
    run: runLayout,
    kind: () => 'leased',
  }),
  route: experiment({
    summary:
      'Where a queue lives on the three-node cluster: its slot and the node that owns it (CLUSTER SHARDS, live), the exact MOVED another node answers, an enqueue and a claim through a cluster client landing on one node, the same keys without braces scattered (CROSSSLOT), and EMQ.ENQUEUE answered MOVED by a non-owner and EMQWIRE by the owner, writing nothing.',
    input: { queue: `a queue name up to ${LIMITS.queueBytes} bytes (default orders)` },
    example: { queue: 'orders' },
    parse: parseRouteInput,
    run: runRoute,
    kind: () => 'queue',
  }),
  reshard: experiment({
    summary:
      'The queue’s slot migrated live, phase by phase (mode keys: SETSLOT IMPORTING, SETSLOT MIGRATING, MIGRATE the oldest row alone so the queue is split across two nodes, then the rest by MIGRATE … KEYS, SETSLOT NODE on every node), with probes at each phase showing each node’s exact reply (ASK only from the migrating owner, MOVED from a node that does not serve the slot, TRYAGAIN for the claim on both sides), what a cluster client does with its claim meanwhile, and the claim served by the new owner; then the slot goes back. Every phase, command and probe has atMs (ms since the move’s first command); a worker claims throughout each move (worker: settings, claims, longestWaitMs, gaveUp). One migration at a time in the whole sandbox. Mode atomic runs on a second three-node cluster of Valkey 9.1 (trafikey loaded, opted in): one CLUSTER MIGRATESLOTS on a queue of the same size, the CLUSTER GETSLOTMIGRATIONS states as they changed, the same probes sent to the source again and again — each served, then MOVED, never ASK or TRYAGAIN — a cluster client’s claims served then redirected once, every key on the new owner; then back. While Valkey 9.1 is being built, its cluster starting, or absent, mode atomic answers 503 VALKEY9_BUILDING, VALKEY9_STARTING or VALKEY9_UNAVAILABLE.',
    input: {
      queue: `a queue name up to ${LIMITS.queueBytes} bytes (default orders)`,
      mode: `how the slot moves: ${MIGRATION_MODES.join(' | ')} (default keys: Valkey 8, key by key; atomic: Valkey 9.1, CLUSTER MIGRATESLOTS)`,
      size: `how many jobs the queue holds when it moves: ${MIGRATION_SIZES.join(' | ')} (default ${DEFAULT_MIGRATION_SIZE}; both modes move the same)`,
    },
    example: { queue: 'orders', mode: 'keys', size: 1000 },
    parse: parseReshardInput,
    run: runReshard,
    kind: () => 'reshard',
  }),
  reserve: experiment({
    summary:
      'On fresh keyspaces: a wire 4 connector claims {emq}:version; a native write refuses it; a wire 6 connector refuses an uninstalled identity; the operator installs it; the wire 6 connector reads it.',
    input: {},
    example: {},
    parse: parseReserveInput,
    run: (runtime) => runReserve(runtime),
    kind: () => 'leased',
  }),
  'two-executors': experiment({
    summary:
      'One sequence of transitions through the scripted executor and the native module side by side, with replies and keyspaces after each step and the verdict that they are the same.',
    input: {
      steps: `optional array (up to ${LIMITS.steps}) of enqueue | schedule | claim | complete | retry | promote | reap | duplicate | stale`,
      queue: 'optional queue name (default orders)',
    },
    example: { steps: ['enqueue', 'claim', 'complete'] },
    parse: parseTwoExecutorsInput,
    run: runTwoExecutors,
    kind: () => 'leased',
  }),
  console: experiment({
    summary: `Up to ${CONSOLE_LIMITS.lines} command lines, typed as into redis-cli, run in order on a fresh keyspace of the standalone node with the native identity installed: each line’s reply or error (linked to the course section that explains it), the slot of every key it named, the commands that went over the wire with the server’s own count of them, and the keyspace after. Only the allow-list runs; a refused line reaches no server.`,
    input: {
      lines: `array of 1–${CONSOLE_LIMITS.lines} strings, each at most ${CONSOLE_LIMITS.lineBytes} bytes, split by redis-cli's quoting rules`,
      node: `optional "standalone" (default: a fresh keyspace of its own) or "cluster" (the three-node cluster through a cluster client: only what writes nothing and names its keys, in the turn of at most ${CONSOLE_CAPS.clusterSlots} slots, SCAN and DBSIZE refused; with the node that answered)`,
      allowed: ALLOWED.join('; '),
    },
    example: {
      lines: [
        'EMQ.ENQUEUE 2 emq:{orders}:job:JOB0Nb1VTbfnu4 emq:{orders}:pending JOB0Nb1VTbfnu4 hello',
        'SCRIPT claim 3 emq:{orders}:pending emq:{orders}:active emq:{orders}:job: 30000',
        'CLUSTER KEYSLOT emq:{orders}:pending',
      ],
    },
    bodyBytes: CONSOLE_LIMITS.bodyBytes,
    parse: parseConsoleInput,
    run: runConsole,
    kind: (input) => (input.node === 'cluster' ? 'reads' : 'leased'),
  }),
};
