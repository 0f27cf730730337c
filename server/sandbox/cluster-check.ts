// What `valkey-cli --cluster check` checks, read from every node rather than from one: each node's own
// view of who owns each of the 16,384 slots (CLUSTER NODES), whether every node names the same owner,
// whether every slot has one, and whether any node still has a slot MIGRATING or IMPORTING. One node's
// CLUSTER SHARDS is only that node's opinion; a cluster is healthy when the opinions agree.

import type { Valkey } from 'iovalkey';

export const SLOTS = 16384;

/** A connection to one node, as the admin, by `host:port`. */
export type NodeDialer = (address: string) => Valkey;

export interface ClusterNodeLine {
  id: string;
  /** `host:port`, as MOVED and ASK name a node. */
  address: string;
  primary: boolean;
  myself: boolean;
  configEpoch: number;
  /** Inclusive ranges this line says the node owns. */
  slots: Array<[number, number]>;
  /** Only on the `myself` line: slots this node has MIGRATING (to `peer`) or IMPORTING (from `peer`). */
  open: Array<{ slot: number; state: 'migrating' | 'importing'; peer: string }>;
}

/** Parses CLUSTER NODES: `<id> <ip:port@bus[,host]> <flags> <primary> <ping> <pong> <epoch> <link> <slot>…`. */
export function parseClusterNodes(text: string, asked?: string): ClusterNodeLine[] {
  // A node no peer ever told its address (a one-node cluster) names itself `:port`: the address it
  // was asked at is its name, as valkey-cli takes it.
  const askedHost = asked ? asked.slice(0, asked.lastIndexOf(':')) : '';
  const lines: ClusterNodeLine[] = [];
  for (const line of text.split('\n')) {
    const words = line.trim().split(' ');
    if (words.length < 8) continue;
    const [id, endpoint, flags, , , , epoch] = words as [string, string, string, ...string[]];
    const flagList = flags.split(',');
    const entry: ClusterNodeLine = {
      id,
      address: endpoint.startsWith(':') ? `${askedHost}${endpoint.split('@')[0]}` : endpoint.split('@')[0]!,
      primary: flagList.includes('master'),
      myself: flagList.includes('myself'),
      configEpoch: Number(epoch),
      slots: [],
      open: [],
    };
    for (const word of words.slice(8)) {
      const open = /^\[(\d+)-([<>])-([0-9a-f]+)\]$/.exec(word);
      if (open) {
        const state = open[2] === '>' ? 'migrating' : 'importing';
        entry.open.push({ slot: Number(open[1]), state, peer: open[3]! });
        continue;
      }
      const [start, end = start] = word.split('-').map(Number) as [number, number?];
      if (Number.isInteger(start) && Number.isInteger(end)) entry.slots.push([start, end!]);
    }
    lines.push(entry);
  }
  return lines;
}

/** One node's opinion of the whole cluster. */
export interface NodeView {
  /** The node asked. */
  address: string;
  id: string;
  configEpoch: number;
  lines: ClusterNodeLine[];
  /** The owner's node id of each slot in this view, or null. */
  owners: Array<string | null>;
}

function viewOf(address: string, lines: ClusterNodeLine[]): NodeView {
  const owners = new Array<string | null>(SLOTS).fill(null);
  for (const line of lines) {
    if (!line.primary) continue;
    for (const [start, end] of line.slots) for (let s = start; s <= end; s += 1) owners[s] = line.id;
  }
  const me = lines.find((line) => line.myself);
  return { address, id: me?.id ?? '', configEpoch: me?.configEpoch ?? 0, lines, owners };
}

/** Every primary the seeds know, asked one by one (the first seed that answers names them). */
export async function readViews(
  dial: NodeDialer,
  seeds: string[],
): Promise<{ views: NodeView[]; unreachable: string[] }> {
  let known: ClusterNodeLine[] | null = null;
  for (const seed of seeds) {
    try {
      known = parseClusterNodes(String(await dial(seed).call('CLUSTER', 'NODES')), seed);
      break;
    } catch {
      // The next seed may answer.
    }
  }
  if (!known) throw new Error(`no seed of the cluster answered CLUSTER NODES: ${seeds.join(', ')}`);
  const addresses = known
    .filter((line) => line.primary && !line.address.startsWith(':'))
    .map((l) => l.address);
  const views: NodeView[] = [];
  const unreachable: string[] = [];
  await Promise.all(
    addresses.map(async (address) => {
      try {
        const text = String(await dial(address).call('CLUSTER', 'NODES'));
        views.push(viewOf(address, parseClusterNodes(text, address)));
      } catch {
        unreachable.push(address);
      }
    }),
  );
  views.sort((a, b) => addresses.indexOf(a.address) - addresses.indexOf(b.address));
  return { views, unreachable };
}

export interface OpenSlot {
  slot: number;
  /** The node that has the slot open. */
  node: string;
  state: 'migrating' | 'importing';
  /** The node id on the other side. */
  peer: string;
}

export interface ClusterCheck {
  views: NodeView[];
  unreachable: string[];
  /** Slots that some view gives to no node. */
  uncovered: number[];
  /** Slots the views give to different owners. */
  disagreements: number[];
  open: OpenSlot[];
  /** What is wrong, in words, one line per kind; empty when the cluster is clean. */
  problems: string[];
}

/** `1-3, 7` for [1, 2, 3, 7], at most `max` pieces. */
export function describeSlots(slots: number[], max = 6): string {
  const pieces: string[] = [];
  for (let i = 0; i < slots.length;) {
    let j = i;
    while (j + 1 < slots.length && slots[j + 1] === slots[j]! + 1) j += 1;
    pieces.push(i === j ? String(slots[i]) : `${slots[i]}-${slots[j]}`);
    i = j + 1;
  }
  return pieces.length > max
    ? `${pieces.slice(0, max).join(', ')} and ${pieces.length - max} more`
    : pieces.join(', ');
}

/** Reads every node's view and says what `valkey-cli --cluster check` would say is wrong. */
export async function checkCluster(dial: NodeDialer, seeds: string[]): Promise<ClusterCheck> {
  const { views, unreachable } = await readViews(dial, seeds);
  const uncovered: number[] = [];
  const disagreements: number[] = [];
  for (let s = 0; s < SLOTS; s += 1) {
    const first = views[0]?.owners[s] ?? null;
    let none = first === null;
    let differ = false;
    for (let v = 1; v < views.length; v += 1) {
      const owner = views[v]!.owners[s] ?? null;
      if (owner === null) none = true;
      if (owner !== first) differ = true;
    }
    if (none) uncovered.push(s);
    if (differ) disagreements.push(s);
  }
  const open: OpenSlot[] = views.flatMap((view) =>
    view.lines
      .filter((line) => line.myself)
      .flatMap((line) => line.open.map((o) => ({ ...o, node: view.address }))),
  );
  const problems: string[] = [];
  if (unreachable.length > 0) problems.push(`not answering: ${unreachable.join(', ')}`);
  if (uncovered.length > 0)
    problems.push(`slots without an owner in some node's view: ${describeSlots(uncovered)}`);
  if (disagreements.length > 0)
    problems.push(`nodes disagree about the owner of slots ${describeSlots(disagreements)}`);
  for (const o of open) problems.push(`slot ${o.slot} is left ${o.state.toUpperCase()} on ${o.node}`);
  return { views, unreachable, uncovered, disagreements, open, problems };
}

/** The owner every view names for `slot`, or null when they differ or none is named. */
export function agreedOwner(views: NodeView[], slot: number): string | null {
  const first = views[0]?.owners[slot] ?? null;
  return first !== null && views.every((view) => view.owners[slot] === first) ? first : null;
}

/** The address of node `id` as the views name it. */
export function addressOf(views: NodeView[], id: string): string | null {
  for (const view of views) {
    if (view.id === id) return view.address;
    const line = view.lines.find((l) => l.id === id);
    if (line) return line.address;
  }
  return null;
}

/** `promise`'s answer, or `late` once `ms` have passed (a frozen node answers nothing). */
function within<T>(ms: number, promise: Promise<T>, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((resolve) => (timer = setTimeout(() => resolve(late), ms))),
  ]);
}

/**
 * Each node's own word on whether the cluster serves it: `cluster_state` of CLUSTER INFO, asked of every
 * node the first answering seed names, each within `ms`. A node that answers PING but still says `fail`
 * (it has just come back from a freeze, and its peers or it still count the other as failing) fails
 * runs on it as surely as one that is down. One line per node that is not `ok`; empty when all are.
 */
export async function clusterStateProblems(dial: NodeDialer, seeds: string[], ms: number): Promise<string[]> {
  let addresses: string[] | null = null;
  for (const seed of seeds) {
    const text = await within(
      ms,
      dial(seed)
        .call('CLUSTER', 'NODES')
        .then(String, () => null),
      null,
    );
    if (text === null) continue;
    addresses = parseClusterNodes(text, seed)
      .map((line) => line.address)
      .filter((address) => !address.startsWith(':'));
    break;
  }
  if (!addresses) return [`no node of the cluster answers within ${ms} ms: ${seeds.join(', ')}`];
  // What each node is, in words: '' when it says ok.
  const words = await Promise.all(
    addresses.map((address) =>
      within(
        ms,
        dial(address)
          .call('CLUSTER', 'INFO')
          .then(
            (info) => {
              const state = /cluster_state:(\w+)/.exec(String(info))?.[1] ?? 'unknown';
              return state === 'ok' ? '' : `says cluster_state:${state}`;
            },
            (error: Error) => `answers ${error.message}`,
          ),
        `does not answer within ${ms} ms`,
      ),
    ),
  );
  const problems = words.flatMap((said, i) => (said ? [`${addresses![i]} ${said}`] : []));
  return problems;
}
