// The one table of experiments (server/contract/experiment-table.ts) is the only list of them: the
// server's half is keyed by its names, each experiment of a part has its component and script,
// docs/api.md's table is generated from it, and no other file writes the names out as a list by hand.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { EXPERIMENTS } from '../../server/api/registry.ts';
import { apiDoc } from '../../server/contract/experiment-doc.ts';
import { EXPERIMENT_NAMES, isExperimentName, rowOf } from '../../server/contract/experiment-table.ts';
import { projectRoot } from '../../server/project-root.ts';
import { componentFile, scriptFile } from '../../src/components/explorer/experiment-files.ts';

const ROOT = projectRoot();
const EXPLORER = join(ROOT, 'src', 'components', 'explorer');
/** The table itself, and the server's half keyed by its names. */
const TABLES = ['server/contract/experiment-table.ts', 'server/api/registry.ts'];

/** Each place in `text` that names three experiments or more, each a quoted word, within three lines. */
export function handKeptLists(text: string, names: readonly string[]): string[] {
  const quoted = new RegExp(`([\`'"])(${names.map((n) => n.replace(/-/g, '\\-')).join('|')})\\1`, 'g');
  const lines = text.split('\n');
  const found: string[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const window = lines.slice(i, i + 3).join('\n');
    const named = new Set([...window.matchAll(quoted)].map((m) => m[2]!));
    if (named.size >= 3 && quoted.test(lines[i]!)) found.push(`line ${i + 1}: ${[...named].join(', ')}`);
    quoted.lastIndex = 0;
  }
  return found;
}

function filesBelow(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|astro|mjs|md|mdx)$/.test(name))
    .map((name) => join(folder, name));
}

test('the server’s half has exactly the table’s experiments, in its order', () => {
  assert.ok(EXPERIMENT_NAMES.length >= 8, `read the table (${EXPERIMENT_NAMES.length} rows)`);
  assert.deepEqual(Object.keys(EXPERIMENTS), EXPERIMENT_NAMES);
});

test('each experiment of a part has its component and script; every component and script has its row', () => {
  const missing: string[] = [];
  const own = EXPERIMENT_NAMES.filter((name) => rowOf(name).parts.length > 0 && !rowOf(name).shownBy);
  for (const name of own) {
    for (const file of [componentFile(name), scriptFile(name)])
      if (!existsSync(join(EXPLORER, file))) missing.push(file);
  }
  assert.deepEqual(missing, []);
  for (const name of EXPERIMENT_NAMES) {
    const by = rowOf(name).shownBy;
    if (by !== undefined) assert.ok(isExperimentName(by) && own.includes(by), `${name} is shown by ${by}`);
  }
  const files = readdirSync(EXPLORER).filter((f) => /(Experiment\.astro|-experiment\.ts)$/.test(f));
  const expected = own.flatMap((name) => [componentFile(name), scriptFile(name)]);
  assert.deepEqual(files.sort(), expected.sort());
});

test('docs/api.md’s table of experiments is the table’s (regenerate: node scripts/api-doc.ts)', () => {
  const api = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
  assert.equal(api, apiDoc(api), 'docs/api.md is stale: node scripts/api-doc.ts');
  const rows = [...api.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]!);
  assert.deepEqual(rows, EXPERIMENT_NAMES, 'a row each, in the table’s order, and no other');
});

test('a changed row of the table makes docs/api.md stale', () => {
  const api = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
  const edited = api.replace(rowOf('keys').result, 'something else');
  assert.notEqual(edited, api);
  assert.notEqual(edited, apiDoc(edited));
});

test('no other file lists the experiments by hand', () => {
  const scanned = [...filesBelow('src'), ...filesBelow('server'), ...filesBelow('docs'), 'README.md'];
  assert.ok(scanned.length > 100, `read the tree (${scanned.length} files)`);
  const lists: string[] = [];
  for (const file of scanned) {
    if (TABLES.includes(file)) continue;
    const text = readFileSync(join(ROOT, file), 'utf8');
    // docs/api.md's table is the API's reference, one row per experiment, generated from the table.
    const read = file === 'docs/api.md' ? text.replace(/^\| `[a-z-]+` \|.*$/gm, '') : text;
    for (const list of handKeptLists(read, EXPERIMENT_NAMES))
      lists.push(`${relative(ROOT, join(ROOT, file))} ${list}`);
  }
  assert.deepEqual(lists, []);
});

test('the scan finds a list written out by hand, and not the names read from the table', () => {
  assert.equal(handKeptLists("const NAMES = ['keys', 'slot',\n  'route'];", EXPERIMENT_NAMES).length, 1);
  assert.equal(handKeptLists('`keys`, `slot` and `reserve`', EXPERIMENT_NAMES).length, 1);
  assert.deepEqual(
    handKeptLists("names: EXPERIMENT_NAMES.join(', ')\nrun('keys', body)", EXPERIMENT_NAMES),
    [],
  );
});
