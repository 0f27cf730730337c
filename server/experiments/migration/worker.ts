// A queue's worker throughout a move: a real iovalkey Cluster client, with iovalkey's own defaults for
// when to give up, claiming in a loop as a queue's workers do (claim, a moment's work, claim again).
// Every claim attempt the client writes is recorded per node and stamped (a TRYAGAIN retried or a
// MOVED followed is an attempt of its own), so the answer shows what the queue lived through: which
// claims were served, when, and the longest stretch without one. stop() waits for the claim under way
// to end (the run's clean-up comes after its last writer), cutting the client if it does not; once a
// move is over, stop({ untilServed: true }) first lets the worker claim until the new owner serves it,
// so its timeline ends on the claim the move held up, never on one cut short.

import type { Cluster } from 'iovalkey';
import { DEFAULT_CLUSTER_OPTIONS } from 'iovalkey/built/cluster/ClusterOptions.js';
import { callFor } from '../../contract/calls.ts';
import { ScriptedExecutor } from '../../executors/scripted.ts';
import { recordEachNode, whenReady } from '../../wire/cluster-wire.ts';
import type { WireCommand } from '../../wire/recorder.ts';
import {
  isErrorReply,
  replyKind,
  type ProbeReply,
  type WorkerTimeline,
} from '../../contract/experiments/migration.ts';
import type { Call } from '../../contract/transitions.ts';
import { stamp, tenths } from './clock.ts';
import { evalWords } from './call-words.ts';
import { asProbeReply } from './probe.ts';

/** The options that decide when a cluster client gives up a command. */
const GIVING_UP = [
  'maxRedirections',
  'retryDelayOnTryAgain',
  'retryDelayOnMoved',
  'retryDelayOnClusterDown',
  'retryDelayOnFailover',
] as const;

/** Those options at iovalkey's defaults, read from iovalkey itself: what a queue's worker meets untuned. */
export const WORKER_SETTINGS = Object.fromEntries(
  GIVING_UP.map((option) => [option, DEFAULT_CLUSTER_OPTIONS[option]!]),
) as Record<(typeof GIVING_UP)[number], number>;

/** The worker's work on a job between two claims. */
export const WORKER_PAUSE_MS = 5;
/** Attempts kept at most (a long move at a short pause stays a bounded answer). */
const MAX_CLAIMS = 2000;
/** How long stop() waits for the claim under way before cutting the client. */
const STOP_WAIT_MS = 3000;
/** How long stop({ untilServed }) lets the worker go on claiming until one is served. */
const SERVED_WAIT_MS = 3000;

/** The recorder's sink, each entry stamped as it is written to its socket. */
class StampedSink extends Array<WireCommand> {
  static override get [Symbol.species]() {
    return Array;
  }
  readonly sentAt: number[] = [];
  override push(...entries: WireCommand[]): number {
    for (let i = 0; i < entries.length; i += 1) this.sentAt.push(stamp());
    return super.push(...entries);
  }
}

/** One claim as the worker's code saw it: the attempts it took on the wire, and what it got back. */
export interface WorkerCall {
  wire: Array<WireCommand & { at: number }>;
  reply: ProbeReply;
}

export interface WorkerRun {
  settings: Record<string, number>;
  calls: WorkerCall[];
  gaveUp: boolean;
}

export interface Worker {
  /**
   * Ends the loop and resolves with what it recorded. `untilServed`: the loop first goes on until a
   * claim is served (at most SERVED_WAIT_MS), as a queue's worker would once a move is over.
   */
  stop(options?: { untilServed?: boolean }): Promise<WorkerRun>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts claiming from `queue` on a client of its own (made from `shared`), once it is connected. */
export async function startWorker(shared: Cluster, queue: string): Promise<Worker> {
  const cluster = shared.duplicate([], { ...WORKER_SETTINGS });
  cluster.on('error', () => {});
  try {
    await whenReady(cluster);
  } catch (error) {
    cluster.disconnect();
    throw error;
  }
  const claim = callFor('claim', queue, { lease_ms: 30_000 });
  const line = evalWords(claim)[0]!;
  const calls: WorkerCall[] = [];
  let attempts = 0;
  let gaveUp = false;
  // Once stop() is asked: whether to go on until a claim is served, and until when.
  const stopping = { asked: false, untilServed: false, by: 0 };
  const loop = (async () => {
    while (attempts < MAX_CLAIMS) {
      if (stopping.asked && !stopping.untilServed) break;
      const sent = sendClaim(cluster, claim);
      const reply = await sent.reply;
      if (/^Too many Cluster redirections/.test(isErrorReply(reply) ? reply.error : '')) gaveUp = true;
      const wire = sent.wire
        .map((entry, i) => ({ ...entry, at: sent.wire.sentAt[i]! }))
        .filter((entry) => entry.line.startsWith(line));
      attempts += wire.length;
      calls.push({ wire, reply });
      // A client that is gone (cut, or its nodes unreachable) is not claiming: the loop ends.
      if (cluster.status === 'end') break;
      if (stopping.asked && (replyKind(reply) === 'served' || Date.now() > stopping.by)) break;
      await sleep(WORKER_PAUSE_MS);
    }
  })();
  return {
    async stop({ untilServed = false } = {}) {
      const wait = untilServed ? SERVED_WAIT_MS : 0;
      Object.assign(stopping, { asked: true, untilServed, by: Date.now() + wait });
      let timer: NodeJS.Timeout | undefined;
      const cut = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          cluster.disconnect();
          resolve();
        }, wait + STOP_WAIT_MS);
      });
      await Promise.race([loop, cut]);
      // Cut or not, the loop has ended once the client is gone: nothing of it writes after this.
      cluster.disconnect();
      await loop;
      clearTimeout(timer);
      return { settings: { ...WORKER_SETTINGS }, calls, gaveUp };
    },
  };
}

/**
 * One claim sent through `cluster`: every command it writes recorded per node and stamped (a TRYAGAIN
 * retried or a MOVED followed is a line of its own) until its reply, an error reply's text included.
 */
export function sendClaim(cluster: Cluster, claim: Call): { wire: StampedSink; reply: Promise<ProbeReply> } {
  const wire = new StampedSink();
  const recordings = recordEachNode(cluster.nodes('master'), wire);
  const reply = new ScriptedExecutor(cluster)
    .run(claim)
    .then(asProbeReply, (error: Error) => ({ error: error.message }))
    .finally(() => {
      for (const recording of recordings) recording.stop();
    });
  return { wire, reply };
}

/**
 * The worker's timeline, stamps still absolute (clock.ts makes them relative): every attempt, and the
 * longest stretch between `from` and `to` (the move) in which no claim was served.
 */
export function workerTimeline(run: WorkerRun, from: number, to: number): WorkerTimeline {
  const claims = run.calls.flatMap((call) =>
    call.wire.map((entry) => ({ atMs: entry.at, node: entry.node ?? '', reply: entry.reply as ProbeReply })),
  );
  const served = claims
    .filter((claim) => replyKind(claim.reply) === 'served' && claim.atMs > from && claim.atMs < to)
    .map((claim) => claim.atMs);
  const points = [from, ...served, to];
  let longest = 0;
  for (let i = 1; i < points.length; i += 1) longest = Math.max(longest, points[i]! - points[i - 1]!);
  return { settings: run.settings, claims, longestWaitMs: tenths(longest), gaveUp: run.gaveUp };
}
