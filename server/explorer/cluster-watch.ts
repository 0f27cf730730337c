// The cluster checked at start and every few seconds while the site runs, as `valkey-cli --cluster check`
// would check it (every slot covered, every node agreeing, nothing left open), and repaired in the
// migration turn when something is wrong: a site killed mid-migration, here or on another host sharing
// the cluster, leaves a slot half-moved, and nobody else would ever close it. What it finds and does is
// logged. `problems()` is what GET /api/sandbox reports as `degraded`: a slot that is open while a
// migration holds the turn is that migration's own business (runs on it wait their turn and are served).

import { checkCluster } from '../sandbox/cluster-check.ts';
import { repairCluster, type RepairReport } from '../sandbox/cluster-repair.ts';
import { LockBusyError } from './run-lock.ts';
import { MIGRATION_LOCK, type ClusterAdmin } from './slot-migration.ts';
import {
  CLUSTER_CHECK_EVERY_MS,
  CLUSTER_START_CHECK_WAIT_MS,
  CLUSTER_STATUS_CACHE_MS,
} from '../settings/bounds.ts';

export interface ClusterWatch {
  /** What is wrong with the cluster right now (empty when every run would be served). */
  problems(): Promise<string[]>;
  /** Checks now and repairs what it finds, when the migration turn comes within `waitMs`. */
  repairNow(waitMs: number): Promise<RepairReport | null>;
  stop(): void;
}

export interface WatchOptions {
  everyMs?: number;
  /** How long the check at start waits for the migration turn (a killed holder's lock must expire). */
  startWaitMs?: number;
  /** How long a reading of `problems()` is reused (a status poll must not cost three round trips each). */
  cacheMs?: number;
}

export async function watchCluster(admin: ClusterAdmin, options: WatchOptions = {}): Promise<ClusterWatch> {
  const {
    everyMs = CLUSTER_CHECK_EVERY_MS,
    startWaitMs = CLUSTER_START_CHECK_WAIT_MS,
    cacheMs = CLUSTER_STATUS_CACHE_MS,
  } = options;
  const say = (line: string) => admin.log(line);
  let running: Promise<RepairReport | null> | null = null;

  const repairNow = (waitMs: number) =>
    (running ??= (async () => {
      try {
        const first = await checkCluster(admin.dial, admin.seeds);
        if (first.problems.length === 0) return null;
        say(`check found: ${first.problems.join('; ')}`);
        const report = await admin.locks.with(
          MIGRATION_LOCK,
          () => repairCluster(admin.dial, admin.seeds, admin.credentials, say),
          waitMs,
        );
        say(
          report.left.length === 0 ? 'the cluster is clean again' : `still wrong: ${report.left.join('; ')}`,
        );
        return report;
      } catch (error) {
        // Busy: a migration holds the turn and will leave the cluster clean itself (or the next check will).
        if (!(error instanceof LockBusyError)) say(`check or repair failed: ${(error as Error).message}`);
        return null;
      } finally {
        running = null;
      }
    })());

  const start = await checkCluster(admin.dial, admin.seeds).catch((error: Error) => ({
    problems: [`cannot read the cluster: ${error.message}`],
  }));
  say(start.problems.length === 0 ? 'check at start: clean' : `check at start: ${start.problems.join('; ')}`);
  if (start.problems.length > 0) await repairNow(startWaitMs);

  const timer = setInterval(() => void repairNow(500), everyMs);
  timer.unref();

  let cached: { at: number; problems: Promise<string[]> } | null = null;
  const read = async (): Promise<string[]> => {
    const check = await checkCluster(admin.dial, admin.seeds);
    if (check.problems.length === 0) return [];
    // Mid-migration, a slot is open by design; anything else is wrong whoever holds the turn.
    if (
      check.unreachable.length === 0 &&
      check.uncovered.length === 0 &&
      (await admin.locks.taken(MIGRATION_LOCK))
    )
      return [];
    return check.problems;
  };
  return {
    problems() {
      if (!cached || Date.now() - cached.at > cacheMs) {
        cached = {
          at: Date.now(),
          problems: read().catch((error: Error) => [`cannot read the cluster: ${error.message}`]),
        };
      }
      return cached.problems;
    },
    repairNow,
    stop: () => clearInterval(timer),
  };
}
