// The built course site for the site tests: builds dist/ when it is missing or older than any input
// (the same rule as scripts/build-site.sh, same stamp), starts `node dist/server/entry.mjs` on a free
// port, and launches Debian's Chromium through playwright-core.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContextOptions } from 'playwright-core';

export const ROOT = resolve(import.meta.dirname, '../..');
export const DIST = join(ROOT, 'dist');
export const CLIENT = join(DIST, 'client');
const STAMP = join(DIST, '.built');
// The test runner that checked the build last: test files of one `node --test` run share its pid, so
// the site is built at most once per run even while someone edits the sources under it.
const CHECKED_BY = join(ROOT, '.astro', 'site-checked-by');
const INPUTS = [
  'src',
  'content',
  'public',
  'server',
  'native-module/src',
  'astro.config.mjs',
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

/** True when dist/ is missing or some input of the build is newer than the last build. */
export function isStale(): boolean {
  if (!existsSync(STAMP) || !existsSync(join(DIST, 'server/entry.mjs'))) return true;
  const built = statSync(STAMP).mtimeMs;
  return INPUTS.some((p) => newestInput(join(ROOT, p)) > built);
}

/** Builds the site if it is stale; concurrent test files wait for one build instead of racing. */
export function ensureBuilt(): void {
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
    const run = String(process.ppid);
    if (existsSync(CHECKED_BY) && readFileSync(CHECKED_BY, 'utf8') === run && existsSync(STAMP)) return;
    if (!isStale()) {
      writeFileSync(CHECKED_BY, run);
      return;
    }
    const bin = join(ROOT, 'node_modules/.bin');
    const result = spawnSync(join(bin, 'astro'), ['build'], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, ASTRO_TELEMETRY_DISABLED: '1' },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`astro build failed:\n${result.stdout}\n${result.stderr}`);
    writeFileSync(STAMP, new Date().toISOString() + '\n');
    writeFileSync(CHECKED_BY, run);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });
}

export interface Site {
  url: string;
  /** The server process, e.g. to find the sandbox servers it started (its children). */
  pid: number;
  close(): Promise<void>;
}

/** Starts the built standalone server; resolves once it answers. */
export async function startSite(env: NodeJS.ProcessEnv = {}): Promise<Site> {
  ensureBuilt();
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(DIST, 'server/entry.mjs')], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
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
    close: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export const VIEWPORTS: Record<'phone' | 'desktop', BrowserContextOptions['viewport']> = {
  phone: { width: 360, height: 760 },
  desktop: { width: 1280, height: 900 },
};

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

/** The built site and a Chromium for one test file: started before its tests, stopped after them. */
export function useCourse(env: NodeJS.ProcessEnv = {}): { readonly site: Site; readonly browser: Browser } {
  let site: Site | undefined;
  let browser: Browser | undefined;
  before(async () => {
    site = await startSite(env);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
  });
  return {
    get site() {
      return site!;
    },
    get browser() {
      return browser!;
    },
  };
}
