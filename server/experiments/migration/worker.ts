// A queue's worker throughout a move: a real iovalkey Cluster client with iovalkey's own defaults for
// giving up, claiming in a loop as a queue's workers do, every attempt it writes recorded per node and
// stamped (a TRYAGAIN retried or a MOVED followed is one of its own).

import type { Cluster } from 'iovalkey';
import { DEFAULT_CLUSTER_OPTIONS } from 'iovalkey/built/cluster/ClusterOptions.js';
import { callFor } from '../../contract/calls.ts';
import { ScriptedExecutor } from '../../executors/scripted.ts';
import { ownCluster, recordEachNode, whenReady } from '../../wire/cluster-wire.ts';
import type { WireCommand } from '../../wire/recorder.ts';
import {
  isErrorReply,
  replyKind,
  type ClientRetries,
  type ProbeReply,
  type WorkerTimeline,
} from '../../contract/experiments/migration.ts';
import type { Call } from '../../contract/transitions.ts';
import { pause, stamp, tenths } from './clock.ts';
import { asProbeReply, evalWords } from './probe.ts';
import { settledWithin } from '../../run-deadline.ts';

/** The options that decide when a cluster client gives up a command. */
const GIVING_UP = [
  'maxRedirections',
  'retryDelayOnTryAgain',
  'retryDelayOnMoved',
  'retryDelayOnClusterDown',
  'retryDelayOnFailover',
] as const;

/** Those options at iovalkey's defaults, read from iovalkey itself: what a queue's worker meets untuned. */
const WORKER_SETTINGS = Object.fromEntries(
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

type Stamped = WireCommand & { at: number };

/** The recorder's sink, each entry stamped (`at`) as it is written to its socket. */
class StampedSink extends Array<Stamped> {
  static override get [Symbol.species]() {
    return Array;
  }
  override push(...entries: WireCommand[]): number {
    // The recorder's own entry, stamped where it is: it fills in the reply later.
    return super.push(...entries.map((entry) => Object.assign(entry, { at: stamp() })));
  }
}

export type Worker = Awaited<ReturnType<typeof startWorker>>;
export type WorkerRun = Awaited<ReturnType<Worker['stop']>>;

/** Starts claiming from `queue` on a client of its own (made from `shared`), once it is connected. */
export async function startWorker(shared: Cluster, queue: string) {
  const cluster = ownCluster(shared, WORKER_SETTINGS);
  await whenReady(cluster);
  const claim = callFor('claim', queue, { lease_ms: 30_000 });
  const line = evalWords(claim)[0]!;
  // Each claim as the worker's code saw it: the attempts it took on the wire, and what it got back.
  const calls: Array<{ wire: Stamped[]; reply: ProbeReply }> = [];
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
      const wire = sent.wire.filter((entry) => entry.line.startsWith(line));
      attempts += wire.length;
      calls.push({ wire, reply });
      // A client that is gone (cut, or its nodes unreachable) is not claiming: the loop ends.
      if (cluster.status === 'end') break;
      if (stopping.asked && (replyKind(reply) === 'served' || Date.now() > stopping.by)) break;
      await pause(WORKER_PAUSE_MS);
    }
  })();
  return {
    /**
     * Ends the loop once the claim under way ends (the clean-up comes after the last writer), cutting
     * the client if it does not. `untilServed`, once a move is over: first claims until one is served,
     * so the timeline ends on the claim the move held up.
     */
    async stop({ untilServed = false } = {}) {
      const wait = untilServed ? SERVED_WAIT_MS : 0;
      Object.assign(stopping, { asked: true, untilServed, by: Date.now() + wait });
      await settledWithin(wait + STOP_WAIT_MS, () => new Error('cut'), loop).catch(() => {});
      // Cut or not, the loop has ended once the client is gone: nothing of it writes after this.
      cluster.disconnect();
      await loop;
      return { calls, gaveUp };
    },
  };
}

/** One claim sent through `cluster`, every command it writes recorded per node until its reply. */
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

/** A claim as the answer's `client` shows it: every command the cluster client wrote, per node. */
export function clientRetries(claim: Call, wire: WireCommand[], reply: ProbeReply): ClientRetries {
  const lines = wire.map(({ node, line, reply }) => ({ node: node ?? '', line, reply: reply as ProbeReply }));
  return { command: evalWords(claim), wire: lines, reply };
}

/** Every attempt (stamps still absolute), and the longest stretch of the move without a served claim. */
export function workerTimeline(run: WorkerRun, from: number, to: number): WorkerTimeline {
  const claims = run.calls.flatMap((call) =>
    call.wire.map((entry) => ({ atMs: entry.at, node: entry.node ?? '', reply: entry.reply as ProbeReply })),
  );
  const served = claims
    .filter((claim) => replyKind(claim.reply) === 'served' && claim.atMs > from && claim.atMs < to)
    .map((claim) => claim.atMs);
  const points = [from, ...served, to];
  const longest = Math.max(0, ...points.slice(1).map((at, i) => at - points[i]!));
  return { settings: { ...WORKER_SETTINGS }, claims, longestWaitMs: tenths(longest), gaveUp: run.gaveUp };
}
