// Where scripts/valkey9.sh puts Valkey 9.1, and whether it is there yet. The script writes its state
// to a file (building <pid> / ready <version> / failed: <why>); this reads it, so the site and the tests
// can say "being built" or "not available: <why>" instead of failing.

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { catalogueText } from '../contract/catalogue/catalogue-text.ts';
import { processRuns } from './process-runs.ts';

export type Valkey9Build =
  | { state: 'ready'; version: string; server: string; cli: string }
  | { state: 'building'; home: string }
  | { state: 'absent'; why: string };

/** The build's folder: VALKEY9_HOME, else ~/.cache/the-owned-keyspace/valkey9 (kept across runs). */
export function valkey9Home(env: NodeJS.ProcessEnv = process.env): string {
  return env.VALKEY9_HOME || join(homedir(), '.cache', 'the-owned-keyspace', 'valkey9');
}

/** What the build folder says now. */
export function valkey9Build(env: NodeJS.ProcessEnv = process.env): Valkey9Build {
  const home = valkey9Home(env);
  const server = join(home, 'bin', 'valkey-server');
  const cli = join(home, 'bin', 'valkey-cli');
  let state = '';
  try {
    state = readFileSync(join(home, 'state'), 'utf8').trim();
  } catch {
    return { state: 'absent', why: `it is not built (no ${home}; scripts/valkey9.sh builds it)` };
  }
  const ready = /^ready (\S+)$/.exec(state);
  if (ready) {
    const missing = [server, cli].find((path) => !existsSync(path));
    if (!missing) return { state: 'ready', version: ready[1]!, server, cli };
    return { state: 'absent', why: `${missing} is missing although the build said it was ready` };
  }
  const building = /^building (\d+)$/.exec(state);
  if (building) {
    if (processRuns(Number(building[1]))) return { state: 'building', home };
    return { state: 'absent', why: `the build stopped before it finished (see ${join(home, 'build.log')})` };
  }
  const failed = /^failed: (.*)$/s.exec(state);
  return { state: 'absent', why: failed ? `the build failed: ${failed[1]}` : `unreadable state ${state}` };
}

/** Why the atomic half cannot run now: still being built, its cluster still starting, or not available. */
export type Valkey9Unavailable = 'building' | 'starting' | 'absent';

/** The catalogue's row for each state: the error's text is that row's. */
const ROW_OF = {
  building: 'VALKEY9_BUILDING',
  starting: 'VALKEY9_STARTING',
  absent: 'VALKEY9_UNAVAILABLE',
} as const;

/**
 * Thrown when the atomic half cannot run, saying why: still being built, its cluster still starting
 * (both worth asking again soon), or not available at all (`why`).
 */
export class Valkey9UnavailableError extends Error {
  readonly state: Valkey9Unavailable;
  constructor(state: 'building' | 'starting');
  constructor(state: 'absent', why: string);
  constructor(state: Valkey9Unavailable, why?: string) {
    super(state === 'absent' ? catalogueText(ROW_OF.absent, { why: why! }) : catalogueText(ROW_OF[state]));
    this.name = 'Valkey9UnavailableError';
    this.state = state;
  }
}
