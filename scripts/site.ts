// The built course site, for the tests, the benchmarks and the scripts alike: the one rule for when
// dist/ is stale (scripts/build-site.ts applies it before `npm start` and `npm test`), building it
// when it is, and starting `node server/serve.ts` (the production entry) on a free port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../server/project-root.ts';
import { freePort } from '../server/sandbox/free-port.ts';
import { siteUrlFrom } from '../src/lib/site-url.ts';

export const ROOT = projectRoot();
export const DIST = join(ROOT, 'dist');
export const CLIENT = join(DIST, 'client');
const STAMP = join(DIST, '.built');
// The process that checked the build last: test files of one `node --test` run share their parent's
// pid, so the site is built at most once per run even while someone edits the sources under it.
const CHECKED_BY = join(ROOT, '.astro', 'site-checked-by');
/** Every input of the build: a file in any of these newer than the last build makes dist/ stale. */
const INPUTS = [
  'src',
  'content',
  'public',
  'server',
  'native-module/src',
  'astro.config.mjs',
  // the build's own steps: the OpenAPI document and the link-preview images
  'scripts/openapi.ts',
  'scripts/openapi-schemas.ts',
  'scripts/preview-images.ts',
  'package-lock.json',
  'tsconfig.json',
];

function newestInput(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestInput(join(path, entry)));
  return newest;
}

/**
 * What the build read from the environment, written into the stamp: the site's public URL (SITE_URL,
 * src/lib/site-url.ts), on which the canonical links, the preview tags, the sitemap and llms.txt depend.
 */
function builtFor(): string {
  return `SITE_URL=${siteUrlFrom(process.env) ?? ''}`;
}

/**
 * True when dist/ is missing, some input of the build is newer than the last build, or the build was
 * made for another SITE_URL: setting it for `npm start` is enough to rebuild what depends on it.
 */
export function isStale(): boolean {
  if (!existsSync(STAMP) || !existsSync(join(DIST, 'server/entry.mjs'))) return true;
  if (!readFileSync(STAMP, 'utf8').split('\n').includes(builtFor())) return true;
  const built = statSync(STAMP).mtimeMs;
  return INPUTS.some((p) => newestInput(join(ROOT, p)) > built);
}

/**
 * Builds the site if it is stale; concurrent callers wait for one build instead of racing.
 * Says whether it built.
 */
export function ensureBuilt(): 'built' | 'up to date' {
  const lock = join(ROOT, '.astro', 'site-build.lock');
  mkdirSync(join(ROOT, '.astro'), { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`the site build lock ${lock} was held too long`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
  try {
    const run = `${process.ppid} ${builtFor()}`;
    if (existsSync(CHECKED_BY) && readFileSync(CHECKED_BY, 'utf8') === run && existsSync(STAMP)) {
      return 'up to date';
    }
    if (!isStale()) {
      writeFileSync(CHECKED_BY, run);
      return 'up to date';
    }
    const bin = join(ROOT, 'node_modules/.bin');
    const result = spawnSync(join(bin, 'astro'), ['build'], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, ASTRO_TELEMETRY_DISABLED: '1' },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`astro build failed:\n${result.stdout}\n${result.stderr}`);
    writeFileSync(STAMP, `${new Date().toISOString()}\n${builtFor()}\n`);
    writeFileSync(CHECKED_BY, run);
    return 'built';
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Node's flags for the site, as scripts/start.sh passes them too: a run's deadline and caller live in
 * AsyncLocalStorage, which without this flag hooks every promise of the process (3× the cost of an
 * await; ~10% of a run's CPU); with it, the context rides on the promise itself.
 */
export const SITE_NODE_FLAGS = ['--experimental-async-context-frame'];

export interface Site {
  url: string;
  /** The server process, e.g. to find the sandbox servers it started (its children). */
  pid: number;
  /** What the server has written to stdout and stderr so far (its log). */
  output(): string;
  close(): Promise<void>;
}

/**
 * Starts the built standalone server; resolves once it answers. A port found free can be taken before
 * the server listens on it (another test's server, a cluster node's bus at port + 10000): the start is
 * tried again on another, twice at most, unless the caller named the port.
 */
export async function startSite(env: NodeJS.ProcessEnv = {}): Promise<Site> {
  ensureBuilt();
  for (let tries = 1; ; tries += 1) {
    try {
      return await startSiteOn(env.PORT ? Number(env.PORT) : await freePort(), env);
    } catch (error) {
      if (env.PORT || tries >= 3 || !/EADDRINUSE/.test((error as Error).message)) throw error;
    }
  }
}

async function startSiteOn(port: number, env: NodeJS.ProcessEnv): Promise<Site> {
  // Another loopback address (HOST=127.0.0.2) stands for another host, as behind a proxy.
  const host = env.HOST ?? '127.0.0.1';
  // The production entry: our HTTP front around Astro's handler, as `npm start` runs it.
  const child: ChildProcess = spawn(process.execPath, [...SITE_NODE_FLAGS, join(ROOT, 'server/serve.ts')], {
    cwd: ROOT,
    // VALKEY9_AT_START=0: a test's site starts the Valkey 9.1 cluster only if a test asks for the atomic
    // mode, not three more servers for every site under test.
    env: { ...process.env, PORT: String(port), VALKEY9_AT_START: '0', ...env, HOST: host },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = `http://${host}:${port}`;
  // Generous: on a loaded 2-core machine a cold Node start and the sandbox can take tens of seconds.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the site server exited:\n${output}`);
    try {
      if ((await fetch(url + '/')).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`the site server did not answer on ${url}:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    output: () => output,
    close: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The built site starting and supervising a sandbox of its own, as `npm start` does on a machine with no
 * Valkey: VALKEY_URL and VALKEY_CLUSTER_URL are emptied, whatever the test's environment holds.
 */
export function startSiteWithOwnSandbox(env: NodeJS.ProcessEnv = {}): Promise<Site> {
  return startSite({ ...env, VALKEY_URL: '', VALKEY_CLUSTER_URL: '' });
}

/** Every HTML page of the built site, as a route (`/`, `/protocol/the-owned-keyspace/`, …); no 404. */
export function builtRoutes(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'index.html') out.push('/' + relative(CLIENT, dir).replace(/\\/g, '/') + '/');
    }
  };
  walk(CLIENT);
  return out.map((r) => r.replace(/^\/\/$/, '/').replace(/^\/+/, '/')).sort();
}

/** The course's own routes, in reading order, as the collection's frontmatter names them. */
export const COURSE_ROUTES = [
  '/',
  '/protocol/the-owned-keyspace/',
  '/protocol/the-owned-keyspace/braced-grammar/',
  '/protocol/the-owned-keyspace/hashtag-and-slot/',
  '/protocol/the-owned-keyspace/reserve/',
];
