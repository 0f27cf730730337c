// reshard, keys mode: the classic slot migration, one step per row of the contract's table of phases —
// IMPORTING, MIGRATING, one row sent alone (the queue split across two nodes), the rest by MIGRATE …
// KEYS, SETSLOT … NODE on every node, then back — with probes keeping each node's exact reply, and a
// cluster client's claim sent once the queue is split, retried until the slot flips (phase-walk.ts).

import { callFor } from '../../contract/calls.ts';
import { jobKey, mintJobId, queueKey, queueKeys } from '../../contract/keyspace/index.ts';
import { checkCluster, type NodeView } from '../../sandbox/cluster-check.ts';
import { moveSlot } from '../../explorer/slot-migration.ts';
import type { Turn } from '../../cluster/run-lock.ts';
import type { MigrationResult } from '../../contract/experiments/migration.ts';
import { ownCluster, whenReady } from '../../wire/cluster-wire.ts';
import { evalWords, nativeWords } from './probe.ts';
import { pause, stamp } from './clock.ts';
import { fillQueue } from './fill.ts';
import { deleteQueueKeysOn } from '../../cluster/queue-keys.ts';
import { serverVersion } from '../../cluster/handle.ts';
import type { Grant } from '../../explorer/grants.ts';
import { clientRetries, sendClaim } from './worker.ts';
import { ask, phaseWalk, planMove } from './phase-walk.ts';

/** What a reshard is given: the admin side of both clusters, and the explorer's view of the shared one. */
export type MigrationGrant = Grant<'migration' | 'queueTurn' | 'cluster' | 'clusterNode'>;

/** How long the clean-up waits for the mid-move claim to end once its client is cut. */
const CLAIM_END_WAIT_MS = 3000;

export async function runKeysMigration(
  grant: MigrationGrant,
  queue: string,
  size: number,
  turn: Turn,
  views: NodeView[],
): Promise<MigrationResult> {
  const admin = grant.migration.cluster;
  return grant.queueTurn(queue, async ({ slot: n, shards }) => {
    const { dial, seeds } = admin;
    const version = await serverVersion(dial(seeds[0]!));
    const on = { cluster: grant.cluster, clusterNode: grant.clusterNode, clusterAdminNode: dial };
    // The turn's repair left every node agreeing who owns the slot, as the queue's turn read it.
    const plan = planMove(queue, n, shards);
    const { nodes, source, target } = plan;
    // A node neither side of the move (a cluster may have two primaries only).
    const bystander = nodes.find((node) => node !== source && node !== target);
    const outside = (label: string, command: string[]) => (bystander ? [ask(bystander, label, command)] : []);

    // The queue, filled on its owner (fill.ts); its three oldest jobs are the ones probed and listed.
    const jobs = (await fillQueue(on.clusterAdminNode(source.address), queue, size)).slice(0, 3);
    const pending = queueKey(queue, 'pending');
    const rows = jobs.map((id) => jobKey(queue, id));
    // The keys each phase lists where they are: the queue's own keys and the three rows.
    const walk = phaseWalk(on, plan, [...queueKeys(queue).map(({ key }) => key), ...rows].sort());
    const moving = { admin, turn, views, slot: n, record: walk.record };
    const move = moveSlot({ ...moving, source, target });
    const claim = callFor('claim', queue, { lease_ms: 30_000 });
    const freshEnqueue = () => callFor('enqueue', queue, { id: mintJobId(), payload: '{"probe":true}' });
    // The pending set's three oldest ids: the queue's head, however long it is.
    const read = (key: string) => (key === pending ? ['ZRANGE', key, '0', '2'] : ['HGETALL', key]);
    // The same call asked of the migrating owner, then of the importing target after ASKING.
    const ownerThenTarget = (what: string, command: string[]) => [
      ask(source, `${what} on the owner`, command),
      ask(target, `${what} on the target, after ASKING`, command, true),
    ];
    const importing = { node: target.address, state: 'importing' as const };
    const both = [{ node: source.address, state: 'migrating' as const }, importing];

    // The cluster client's claim, sent once the queue is split, on a client of its own: allowed many
    // redirections (it retries until the slot flips), connected before the move so its claim goes at once.
    const cluster = ownCluster(grant.cluster, { maxRedirections: 1000 });
    let sent = null as ReturnType<typeof sendClaim> | null;
    try {
      await walk.through('keys', {
        stable: {
          summary: `slot ${n} is served by ${source.name} alone`,
          probes: () => [
            ask(source, 'the owner serves the queue', read(pending)),
            ...outside('a node that does not own the slot redirects', read(pending)),
            ask(source, 'the module, reached on the owner', nativeWords(freshEnqueue())),
          ],
        },
        importing: {
          summary: `${target.name} is IMPORTING slot ${n}; ${source.name} still owns it`,
          open: [importing],
          async run() {
            await whenReady(cluster);
            await walk.startWorker();
            await move.importing();
          },
          probes: () => [
            ask(target, 'the importing node, without ASKING', read(pending)),
            ask(source, 'the owner still serves it', read(pending)),
          ],
        },
        migrating: {
          summary: `${source.name} is MIGRATING slot ${n} to ${target.name}; no key has moved yet`,
          open: both,
          run: move.migrating,
          probes: () => [
            ask(source, 'a key still on the owner is served', read(pending)),
            ask(source, 'the scripted claim (declares the row base, never a key)', evalWords(claim)),
          ],
        },
        split: {
          summary: `one row moved to ${target.name}; the queue is split across two nodes`,
          open: both,
          run: () => move.migrate([rows[0]!]),
          probes: () => {
            const enqueue = freshEnqueue();
            return [
              ask(source, 'a moved key, on the owner', read(rows[0]!)),
              ask(target, 'the moved key on the target, without ASKING', read(rows[0]!)),
              ask(target, 'the moved key on the target, after ASKING', read(rows[0]!), true),
              ask(source, 'a key not yet moved', read(rows[1]!)),
              ...ownerThenTarget('the scripted claim', evalWords(claim)),
              ask(source, 'an enqueue (a new row, and the pending set)', evalWords(enqueue)),
              ...ownerThenTarget('the module’s enqueue', nativeWords(enqueue)),
              ...outside('a node outside the move', read(rows[0]!)),
            ];
          },
        },
        moved: {
          summary: `every key is on ${target.name}; ${source.name} still owns the slot`,
          open: both,
          async run() {
            // The move goes on once the client has had its first answer (TRYAGAIN).
            const { wire } = (sent = sendClaim(cluster, claim));
            const answered = () =>
              wire.some((entry) => entry.line.startsWith('EVALSHA') && entry.reply !== null);
            for (const deadline = Date.now() + 3000; !answered() && Date.now() < deadline;) await pause(5);
            await move.migrateRest();
          },
          probes: () => [
            ask(source, 'the pending set, on the owner', read(pending)),
            ask(target, 'on the target, without ASKING', read(pending)),
            ask(target, 'on the target, after ASKING', read(pending), true),
            ...ownerThenTarget('the scripted claim', evalWords(claim)),
          ],
        },
        owner: {
          summary: `every node names ${target.name} the owner of slot ${n}; nothing is open`,
          owner: target,
          async run() {
            await move.owner();
            walk.moveOver(stamp());
            // The claim the cluster client sent mid-way is served now; then a claim asked of each node.
            await sent!.reply;
          },
          probes: () => [
            ask(target, 'the scripted claim on the new owner', evalWords(claim)),
            ask(source, 'the former owner redirects', evalWords(claim)),
            ask(target, 'the module, reached on the new owner', nativeWords(freshEnqueue())),
          ],
        },
        back: {
          summary: `the slot moved back to ${source.name}, keys and all`,
          // Back where it was, in one batch, so the next reader finds the layout the page describes: once
          // the worker has stopped, so no claim of its meets the move back.
          async run() {
            await walk.workerStopped();
            await moveSlot({ ...moving, source: target, target: source }).whole();
          },
        },
      });
      const client = clientRetries(claim, sent!.wire, await sent!.reply);
      const clean = (await checkCluster(dial, seeds)).problems.length === 0;
      return walk.answer({ mode: 'keys', server: version, jobs, jobCount: size }, { client, clean });
    } finally {
      // The clean-up comes after the run's last writer: the mid-move claim ends (its client cut) and
      // the worker stops; then the queue goes from every node, an importing one included.
      cluster.disconnect();
      await Promise.race([sent?.reply, pause(CLAIM_END_WAIT_MS)]);
      await walk.stop();
      const everyNode = nodes.map((node) => dial(node.address));
      await deleteQueueKeysOn(everyNode, queue, n);
    }
  });
}
