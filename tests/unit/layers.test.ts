// The rooms of server/, lowest first: a file imports from its own room or from a lower tier, never from
// its own tier's other rooms or from above. A new room fails here until it is given its tier.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { projectRoot } from '../../server/project-root.ts';

const TIERS: readonly (readonly string[])[] = [
  ['contract'], // what the browser and the server share: the keyspace, the limits, the table, the types
  ['(root)', 'settings'], // the project root, the log, a seeded random, a run's deadline; the server's bounds
  ['lua'], // the one loader of .lua files
  ['executors'], // the transition table and the two executors
  ['catalogue'], // the error catalogue, and the failures built from its rows
  ['connectors', 'input', 'inspect'], // the wire identity; a reader's JSON; reading a keyspace
  ['wire', 'conformance'], // the wire recorder; the two executors held to one keyspace
  ['sandbox'], // starting, supervising, checking and repairing Valkey servers
  ['explorer'], // the runtime: its account, pools, run lock, slot moves, cluster runs
  ['experiments'], // the experiments alone
  ['api'], // routes, answers, failures, the registry, the island
  ['front'], // the HTTP server: paths, limits, compression, static files
  ['cli', '(serve)'], // what starts it all
];

const SERVER = join(projectRoot(), 'server');

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

/** Every relative module a file names: static imports and re-exports, `import type` included. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms)].map(
    (m) => m[1]!,
  );
  return specifiers.map((s) => join(dirname(file), s));
}

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
