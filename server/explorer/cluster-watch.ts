// The cluster checked at start and every few seconds, as `valkey-cli --cluster check` would, and repaired
// in the migration turn: a site killed mid-migration leaves a slot half-moved that nobody else would
// close. `problems()` is GET /api/sandbox's `degraded`. A slot open while a migration holds the turn is
// that migration's business, so it is no problem: the site's own reshards raised false alarms.

import { checkCluster } from '../sandbox/cluster-check.ts';
import { repairCluster } from '../sandbox/cluster-repair.ts';
import { BusyError } from '../catalogue/busy.ts';
import { MIGRATION_LOCK, type ClusterAdmin } from './slot-migration.ts';
import {
  CLUSTER_CHECK_EVERY_MS,
  CLUSTER_START_CHECK_WAIT_MS,
  CLUSTER_STATUS_CACHE_MS,
} from '../settings/bounds.ts';

export async function watchCluster(admin: ClusterAdmin, { everyMs = CLUSTER_CHECK_EVERY_MS } = {}) {
  const say = (line: string) => admin.log(line);
  let running: Promise<void> | null = null;

  // The check, less what is open only because a migration holds the turn: the turn is read before and
  // after, so a move that started or ended meanwhile counts (one really left open, the next check finds).
  const checkOutsideMigrations = async () => {
    const before = await admin.locks.taken(MIGRATION_LOCK);
    const check = await checkCluster(admin.dial, admin.seeds);
    if (check.problems.length === 0) return check;
    // Mid-migration, a slot is open by design; anything else is wrong whoever holds the turn.
    const openByDesign = check.unreachable.length === 0 && check.uncovered.length === 0;
    if (openByDesign && (before || (await admin.locks.taken(MIGRATION_LOCK))))
      return { ...check, problems: [], duringTurn: true };
    return check;
  };

  // Checks and repairs in the migration turn, if it comes within `waitMs`. `found`: the check at start,
  // repaired even while the turn is taken (a holder killed mid-move); later checks leave a move alone.
  const repairNow = (waitMs: number, found?: { problems: string[] }) =>
    (running ??= (async () => {
      try {
        const first = found ?? (await checkOutsideMigrations());
        if (first.problems.length === 0) return;
        say(`check found: ${first.problems.join('; ')}`);
        const { left } = await admin.locks.line.with(
          MIGRATION_LOCK,
          () => repairCluster(admin.dial, admin.seeds, admin.credentials, say),
          waitMs,
        );
        say(left.length === 0 ? 'the cluster is clean again' : `still wrong: ${left.join('; ')}`);
      } catch (error) {
        // Busy: a migration holds the turn (or the line is long) and will leave the cluster clean itself
        // (or the next check will).
        if (!(error instanceof BusyError)) say(`check or repair failed: ${(error as Error).message}`);
      } finally {
        running = null;
      }
    })());

  const start = await checkCluster(admin.dial, admin.seeds).catch((error: Error) => ({
    problems: [`cannot read the cluster: ${error.message}`],
  }));
  say(start.problems.length === 0 ? 'check at start: clean' : `check at start: ${start.problems.join('; ')}`);
  if (start.problems.length > 0) await repairNow(CLUSTER_START_CHECK_WAIT_MS, start);

  const timer = setInterval(() => void repairNow(500), everyMs).unref();

  // Reused a moment: a status poll must not cost three round trips each.
  let cached: { at: number; problems: Promise<string[]> } | null = null;
  // A reading taken while the turn is held says what the last one outside it said: the turn may be a
  // migration's (the slot open by design) or this watch's own repair of a slot left open, which must not
  // read as "up" for as long as the repair tries.
  let outside: string[] = [];
  return {
    /** What is wrong with the cluster right now (empty when every run would be served). */
    problems() {
      if (!cached || Date.now() - cached.at > CLUSTER_STATUS_CACHE_MS) {
        const read = checkOutsideMigrations().then(
          (check) => ('duringTurn' in check ? outside : (outside = check.problems)),
          (error: Error) => [`cannot read the cluster: ${error.message}`],
        );
        cached = { at: Date.now(), problems: read };
      }
      return cached.problems;
    },
    stop: () => clearInterval(timer),
  };
}
