// The classic slot migration, live, step by step (mode `keys`): the target set IMPORTING, the source
// MIGRATING, the queue's oldest row sent over alone with MIGRATE, so the queue is split across two
// nodes, then the rest of the queue (one of MIGRATION_SIZES jobs) in batches of MIGRATE … KEYS; then
// CLUSTER SETSLOT … NODE on every node. A worker claims throughout the move (worker.ts). At
// each phase, probes ask single nodes directly and keep their exact replies: where ASK comes from (only
// the migrating owner), MOVED from a node that does not serve the slot, TRYAGAIN for every call that
// declares a key that is not there (the claim's row base `emq:{q}:job:` never is), and the module
// reached only after routing lets a call through. Meanwhile a cluster client's claim, sent when the
// queue is split, shows what the client does with each answer: it retries TRYAGAIN until the slot
// flips, follows MOVED, and is served by the new owner. Then the slot goes back, quietly.

import type { Cluster, Valkey } from 'iovalkey';
import { callFor } from '../../contract/calls.ts';
import { ScriptedExecutor } from '../../executors/scripted.ts';
import { jobKey, mintJobId, queueKey, queueKeys, queueSlot } from '../../contract/keyspace/index.ts';
import { agreedOwner, checkCluster } from '../../sandbox/cluster-check.ts';
import { moveSlot, type MigrationStep } from '../../explorer/slot-migration.ts';
import type { Turn } from '../../cluster/run-lock.ts';
import type { NodeView } from '../../sandbox/cluster-check.ts';
import type {
  ClientRetries,
  MigrationCommand,
  MigrationPhase,
  MigrationProbe,
  MigrationResult,
} from '../../contract/experiments/migration.ts';
import type { Grant } from '../../explorer/grants.ts';
import type { WireCommand } from '../../wire/recorder.ts';
import { recordEachNode, whenReady } from '../../wire/cluster-wire.ts';
import { evalWords, nativeWords } from './call-words.ts';
import { migrationAnswer, planMove } from './plan.ts';
import { asProbeReply, probe } from './probe.ts';
import { sinceMoveStart, stamp, tenths } from './clock.ts';
import { fillQueue } from './fill.ts';
import { deleteQueueKeysOn } from '../../cluster/queue-keys.ts';
import { serverVersion } from '../../cluster/handle.ts';
import { startWorker, workerTimeline, type Worker } from './worker.ts';
import { keysByNode, repliesByNode } from './phase-counts.ts';

/** Keys per MIGRATE once the queue is split: 20,000 jobs in about 20 commands. */
const MIGRATE_BATCH = 1000;
/** How long the clean-up waits for the mid-move claim to end once its client is cut. */
const CLAIM_END_WAIT_MS = 3000;

/** What a reshard is given: the admin side of both clusters, and the explorer's view of the shared one. */
export type MigrationGrant = Grant<'migration' | 'queueTurn' | 'cluster' | 'clusterNode'>;

export async function runKeysMigration(
  grant: MigrationGrant,
  queue: string,
  size: number,
  turn: Turn,
  views: NodeView[],
): Promise<MigrationResult> {
  const n = queueSlot(queue);
  const migrations = grant.migration.cluster;
  return grant.queueTurn(queue, async () => {
    // Named as the node map names them: node 1, 2, 3 in the order of their first slot.
    const firstSlot = (id: string) => {
      const at = views[0]!.owners.indexOf(id);
      return at < 0 ? Infinity : at;
    };
    const ownerId = agreedOwner(views, n);
    if (!ownerId) throw new Error(`the nodes do not agree who owns slot ${n}`);
    const plan = planMove(
      queue,
      n,
      [...views].sort((a, b) => firstSlot(a.id) - firstSlot(b.id)),
      ownerId,
    );
    const { nodes, source, target } = plan;
    const bystander = nodes.find((node) => node !== source && node !== target) ?? null;
    const admin = (address: string) => migrations.dial(address);
    const reader = (address: string) => grant.clusterNode(address);
    const server = await serverVersion(admin(source.address));

    // The queue, written on its owner as the enqueue transition writes it (fill.ts); the three oldest
    // jobs are the ones the probes read and the answer lists.
    const jobs = (await fillQueue(admin(source.address), queue, size)).slice(0, 3);
    const pending = queueKey(queue, 'pending');
    const rows = jobs.map((id) => jobKey(queue, id));
    // The keys each phase lists where they are: the queue's own keys and the three rows (a thousand
    // rows are counted by the atomic mode, not listed).
    const shown = [...queueKeys(queue).map(({ key }) => key), ...rows].sort();
    // A key is on a node when that node has it: EXISTS after ASKING, so an importing node answers for
    // a slot it does not own yet, and a node without it answers 0 or a redirection.
    const keysOn = async (address: string) => {
      const batch = admin(address).pipeline();
      for (const key of shown) batch.call('ASKING').exists(key);
      const answers = (await batch.exec()) ?? [];
      return shown.filter((_, i) => answers[2 * i + 1]?.[1] === 1);
    };
    const claim = callFor('claim', queue, { lease_ms: 30_000 });
    const freshEnqueue = () => callFor('enqueue', queue, { id: mintJobId(), payload: '{"probe":true}' });

    const phases: MigrationPhase[] = [];
    let steps: MigrationCommand[] = [];
    // The move begins with its first command (IMPORTING): every stamp of the answer counts from it.
    let origin: number | null = null;
    const record = ({ node, command, reply, sentAt }: MigrationStep) => {
      origin ??= sentAt;
      steps.push({ node, command, reply: asProbeReply(reply), atMs: sentAt });
    };
    const phase = async (
      name: string,
      summary: string,
      owner: string,
      open: MigrationPhase['open'],
      probes: () => Promise<MigrationProbe[]>,
    ) => {
      const atMs = stamp();
      const [onSource, onTarget, counted] = await Promise.all([
        keysOn(source.address),
        keysOn(target.address),
        keysByNode(nodes, admin, n),
      ]);
      const asked = await probes();
      phases.push({
        name,
        summary,
        atMs,
        owner,
        open,
        keys: { source: onSource, target: onTarget },
        keysByNode: counted,
        repliesByNode: repliesByNode(nodes, asked),
        steps,
        probes: asked,
      });
      steps = [];
    };
    const ask = (address: string, label: string, command: string[], asking = false) =>
      probe(reader(address), address, label, command, asking);
    // The same call asked of the migrating owner, then of the importing target after ASKING.
    const ownerThenTarget = async (what: string, command: string[]) => [
      await ask(source.address, `${what} on the owner`, command),
      await ask(target.address, `${what} on the target, after ASKING`, command, true),
    ];
    // The pending set's three oldest ids: the queue's head, however long it is.
    const read = (key: string) => (key === pending ? ['ZRANGE', key, '0', '2'] : ['HGETALL', key]);
    const both = [
      { node: source.address, state: 'migrating' as const },
      { node: target.address, state: 'importing' as const },
    ];

    await phase('stable', `slot ${n} is served by ${source.name} alone`, source.address, [], async () => [
      await ask(source.address, 'the owner serves the queue', read(pending)),
      ...(bystander
        ? [await ask(bystander.address, 'a node that does not own the slot redirects', read(pending))]
        : []),
      await ask(source.address, 'the module, reached on the owner', nativeWords(freshEnqueue())),
    ]);

    // The cluster client's claim, sent once the queue is split: recorded per node until it is served.
    // A client of its own, allowed many redirections (it keeps retrying until the slot flips),
    // connected before the move starts so its claim goes out the moment the queue is split.
    const cluster = grant.cluster.duplicate([], { maxRedirections: 1000 });
    cluster.on('error', () => {});
    let client: Promise<ClientRetries> | null = null;
    let worker: Worker | null = null;
    try {
      await whenReady(cluster);
      return await migrateWith(cluster);
    } finally {
      // The clean-up comes after the run's last writer: the mid-move claim ends (its client cut) and
      // the worker stops; then the queue goes from every node, an importing one included.
      cluster.disconnect();
      await Promise.race([
        (client as Promise<unknown> | null)?.catch(() => {}),
        new Promise((resolve) => setTimeout(resolve, CLAIM_END_WAIT_MS)),
      ]);
      await (worker as Worker | null)?.stop();
      await deleteQueueKeysOn(
        nodes.map((node) => admin(node.address)),
        queue,
        n,
      );
    }

    async function migrateWith(cluster: Cluster): Promise<Omit<MigrationResult, 'leftBehind'>> {
      const sendClaim = async (): Promise<void> => {
        const sink: WireCommand[] = [];
        const recordings = recordEachNode(cluster.nodes('master'), sink);
        client = new ScriptedExecutor(cluster)
          .run(claim)
          .then(asProbeReply, (error: Error) => ({ error: error.message }))
          .then((reply) => {
            for (const recording of recordings) recording.stop();
            const wire = sink.map((entry) => ({
              node: entry.node ?? '',
              line: entry.line,
              reply: entry.reply,
            }));
            return { command: evalWords(claim), wire, reply };
          });
        // The migration goes on once the client has had its first answer (TRYAGAIN) for this phase.
        const deadline = Date.now() + 3000;
        while (!sink.some((entry) => entry.line.startsWith('EVALSHA') && entry.reply !== null)) {
          if (Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };

      // The worker claims from before the first command until the move is over.
      worker = await startWorker(grant.cluster, queue);
      await moveSlot(migrations, turn, views, n, source, target, record, {
        batches: [[rows[0]!]],
        batchSize: MIGRATE_BATCH,
        hooks: {
          importing: () =>
            phase(
              'importing',
              `${target.name} is IMPORTING slot ${n}; ${source.name} still owns it`,
              source.address,
              [{ node: target.address, state: 'importing' }],
              async () => [
                await ask(target.address, 'the importing node, without ASKING', read(pending)),
                await ask(source.address, 'the owner still serves it', read(pending)),
              ],
            ),
          opened: () =>
            phase(
              'migrating',
              `${source.name} is MIGRATING slot ${n} to ${target.name}; no key has moved yet`,
              source.address,
              both,
              async () => [
                await ask(source.address, 'a key still on the owner is served', read(pending)),
                await ask(
                  source.address,
                  'the scripted claim (declares the row base, never a key)',
                  evalWords(claim),
                ),
              ],
            ),
          batchMoved: async (batch, left) => {
            if (batch[0] === rows[0]) {
              await phase(
                'split',
                `one row moved to ${target.name}; the queue is split across two nodes`,
                source.address,
                both,
                async () => {
                  const enqueue = freshEnqueue();
                  const probes = [
                    await ask(source.address, 'a moved key, on the owner', read(rows[0]!)),
                    await ask(target.address, 'the moved key on the target, without ASKING', read(rows[0]!)),
                    await ask(
                      target.address,
                      'the moved key on the target, after ASKING',
                      read(rows[0]!),
                      true,
                    ),
                    await ask(source.address, 'a key not yet moved', read(rows[1]!)),
                    ...(await ownerThenTarget('the scripted claim', evalWords(claim))),
                    await ask(
                      source.address,
                      'an enqueue (a new row, and the pending set)',
                      evalWords(enqueue),
                    ),
                    ...(await ownerThenTarget('the module’s enqueue', nativeWords(enqueue))),
                  ];
                  if (bystander)
                    probes.push(await ask(bystander.address, 'a node outside the move', read(rows[0]!)));
                  return probes;
                },
              );
              await sendClaim();
            }
            if (left === 0)
              await phase(
                'moved',
                `every key is on ${target.name}; ${source.name} still owns the slot`,
                source.address,
                both,
                async () => [
                  await ask(source.address, 'the pending set, on the owner', read(pending)),
                  await ask(target.address, 'on the target, without ASKING', read(pending)),
                  await ask(target.address, 'on the target, after ASKING', read(pending), true),
                  ...(await ownerThenTarget('the scripted claim', evalWords(claim))),
                ],
              );
          },
        },
      });

      // The move ends when every node named the new owner (moveSlot settled it); the worker claims on
      // until the new owner serves it, and stops before anything else moves the slot.
      const moveEnd = stamp();
      const moveMs = tenths(moveEnd - origin!);
      const working = worker.stop({ untilServed: true });
      // The claim the cluster client sent mid-way is served now; then a claim asked of each node.
      const retries = await (client as Promise<ClientRetries> | null)!;
      await phase(
        'owner',
        `every node names ${target.name} the owner of slot ${n}; nothing is open`,
        target.address,
        [],
        async () => [
          await ask(target.address, 'the scripted claim on the new owner', evalWords(claim)),
          await ask(source.address, 'the former owner redirects', evalWords(claim)),
          await ask(target.address, 'the module, reached on the new owner', nativeWords(freshEnqueue())),
        ],
      );

      // Back where it was, in one batch, so the next reader finds the layout the page describes: once
      // the worker has stopped, so no claim of its meets the move back.
      const worked = await working;
      worker = null;
      await moveSlot(migrations, turn, views, n, target, source, record);
      await phase(
        'back',
        `the slot moved back to ${source.name}, keys and all`,
        source.address,
        [],
        async () => [],
      );

      const check = await checkCluster(migrations.dial, migrations.seeds);
      const timeline = workerTimeline(worked, origin!, moveEnd);
      return migrationAnswer(plan, {
        mode: 'keys' as const,
        server,
        jobs,
        jobCount: size,
        moveMs,
        ...sinceMoveStart({ phases, worker: timeline }, origin!),
        client: retries,
        clean: check.problems.length === 0,
      });
    }
  });
}
