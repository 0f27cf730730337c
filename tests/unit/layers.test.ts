// The rooms of server/, lowest first: a file imports from its own room or from a lower tier, never from
// its own tier's other rooms or from above. A new room fails here until it is given its tier.
// The lowest, server/contract/, is what the browser and the server share: it imports no Node API and no
// package, nothing from the rest of server/ and nothing from src/; and src/ imports server/ only from it.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { projectRoot } from '../../server/project-root.ts';

const TIERS: readonly (readonly string[])[] = [
  ['contract'], // what the browser and the server share: the keyspace, the limits, the table, the types
  ['observe'], // the request's context, the access log and the metrics (prom-client)
  ['(root)', 'settings'], // the project root, the log, a seeded random, a run's deadline; the server's bounds
  ['lua'], // the one loader of .lua files
  ['executors'], // the transition table and the two executors
  ['catalogue'], // the error catalogue, and the failures built from its rows
  ['connectors', 'input', 'inspect'], // the wire identity; a reader's JSON; reading a keyspace
  ['wire', 'conformance'], // the wire recorder; the two executors held to one keyspace
  ['sandbox'], // starting, supervising, checking and repairing Valkey servers
  ['cluster'], // one cluster handle for both Valkey versions, its locks and its operations
  ['explorer'], // the runtime: its account, pools, run lock, slot moves, cluster runs
  ['experiments'], // the experiments alone
  ['api'], // routes, answers, failures, the registry, the island
  ['front'], // the HTTP server: paths, limits, compression, static files
  ['cli', '(serve)'], // what starts it all
];

const SERVER = join(projectRoot(), 'server');
const CONTRACT = join(SERVER, 'contract');
const SRC = join(projectRoot(), 'src');

function roomOf(file: string): string {
  const parts = relative(SERVER, file).split(sep);
  if (parts.length > 1) return parts[0]!;
  return parts[0] === 'serve.ts' ? '(serve)' : '(root)';
}

function tierOf(room: string): number {
  return TIERS.findIndex((tier) => tier.includes(room));
}

function serverFiles(): string[] {
  return readdirSync(SERVER, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(SERVER, name));
}

/**
 * Every module a file names, as written: static imports and re-exports (`import type` included), imports
 * for effect, dynamic imports and Vite's import.meta.glob.
 */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]/gms,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /\bimport(?:\.meta\.glob)?\(\s*['"]([^'"]+)['"]/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1]!));
}

/** Every relative module a file names, as a path. */
function importsOf(file: string): string[] {
  return specifiersOf(file)
    .filter((s) => s.startsWith('.'))
    .map((s) => join(dirname(file), s));
}

function filesBelow(folder: string, pattern: RegExp): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => pattern.test(name))
    .map((name) => join(folder, name));
}

const inside = (folder: string, path: string) => !relative(folder, path).startsWith('..');

test('every room of server/ has a tier', () => {
  const rooms = new Set(serverFiles().map(roomOf));
  for (const room of rooms) assert.notEqual(tierOf(room), -1, `server/${room}/ has no tier in this test`);
});

test('no file in server/ imports from its own tier or above, except its own room', () => {
  const upward: string[] = [];
  for (const file of serverFiles()) {
    const room = roomOf(file);
    for (const target of importsOf(file)) {
      const other = roomOf(target);
      if (other === room) continue;
      if (tierOf(other) >= tierOf(room)) {
        upward.push(`${relative(SERVER, file)} → ${relative(SERVER, target)}`);
      }
    }
  }
  assert.deepEqual(upward, []);
});

test('the tiers hold the sandbox below the explorer, and the walk sees serve.ts import the front', () => {
  // The sandbox starts servers and knows nothing of the executors that run on them.
  assert.ok(tierOf('executors') < tierOf('sandbox'));
  assert.ok(
    tierOf(roomOf(join(SERVER, 'sandbox', 'x.ts'))) < tierOf(roomOf(join(SERVER, 'explorer', 'y.ts'))),
  );
  assert.ok(importsOf(join(SERVER, 'serve.ts')).some((path) => roomOf(path) === 'front'));
});

test('server/contract/ imports no Node API, no package, and nothing outside itself', () => {
  const files = filesBelow(CONTRACT, /\.ts$/);
  assert.ok(files.length >= 30, `read the room (${files.length} files)`);
  const outside: string[] = [];
  for (const file of files) {
    for (const specifier of specifiersOf(file)) {
      const leaves = !specifier.startsWith('.') || !inside(CONTRACT, join(dirname(file), specifier));
      if (leaves) outside.push(`${relative(SERVER, file)} → ${specifier}`);
    }
  }
  assert.deepEqual(outside, []);
});

test('src/ imports server/ only through server/contract/', () => {
  const files = filesBelow(SRC, /\.(ts|astro|mjs|js)$/);
  const through: string[] = [];
  const elsewhere: string[] = [];
  for (const file of files) {
    for (const target of importsOf(file)) {
      if (!inside(SERVER, target)) continue;
      (inside(CONTRACT, target) ? through : elsewhere).push(
        `${relative(SRC, file)} → ${relative(SERVER, target)}`,
      );
    }
  }
  assert.ok(through.length >= 20, `src/ reads the contract (${through.length} imports)`);
  assert.deepEqual(elsewhere, []);
});

test('the walk sees every kind of import the rules are about', () => {
  const probe = join(SRC, 'components', 'explorer', 'explorer.ts');
  assert.ok(specifiersOf(probe).includes('./*-experiment.ts'), 'an import.meta.glob');
  assert.ok(specifiersOf(probe).includes('./byte-count.ts'), 'an import for effect');
  const fallback = join(SRC, 'components', 'explorer', 'ExplorerFallback.astro');
  assert.ok(specifiersOf(fallback).includes('./explorer.ts'), 'a dynamic import');
  assert.ok(
    importsOf(join(SRC, 'components', 'explorer', 'Explorer.astro')).some((path) => inside(CONTRACT, path)),
    'an .astro file’s frontmatter',
  );
});

/**
 * The folders of server/ a file reads by path (`join(projectRoot(), 'server', '<room>', …)`, as the .lua
 * files are read): an import the walk above cannot see, so it is held to the same rule, and tighter —
 * a file reads only its own room's files; another room's are reached through that room's module.
 */
function roomsReadByPath(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/projectRoot\(\),\s*'server',\s*'([^']+)'/g)].map((m) => m[1]!);
}

test('a file of server/ reads files by path only from its own room', () => {
  const crossing: string[] = [];
  for (const file of serverFiles()) {
    for (const room of roomsReadByPath(file))
      if (room !== roomOf(file)) crossing.push(`${relative(SERVER, file)} reads server/${room}/ by path`);
  }
  assert.deepEqual(crossing, []);
  // The walk sees the reads it is about: the run lock's scripts read by the cluster room.
  assert.deepEqual(roomsReadByPath(join(SERVER, 'cluster', 'run-lock.ts')), ['cluster']);
});
