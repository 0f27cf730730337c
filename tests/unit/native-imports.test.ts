// The native module's files import one another without a loop: each module of native-module/src (a
// file, or a folder with its files) names others as `crate::<module>`, and following those names never
// comes back to where it started, so each module can be read before the ones that use it.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { test } from 'node:test';
import { projectRoot } from '../../server/project-root.ts';

const SRC = join(projectRoot(), 'native-module', 'src');

const TEST_ONLY_FILE = /#\[cfg\(test\)\]\s*mod (\w+);/g;
const TEST_ONLY_BLOCK = /#\[cfg\(test\)\]\s*mod \w+ \{/;

/**
 * Each module of the crate (lib.rs, the root, left out) and the other modules it names. What is compiled
 * for the tests alone is left out: a file declared `#[cfg(test)] mod <name>;` (a `tests.rs`, a mirror,
 * the fixtures) and a file's `#[cfg(test)] mod tests { … }`, which Rust keeps at the end.
 */
function uses(): Map<string, Set<string>> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.rs'));
  const testOnly = new Set<string>();
  for (const file of files) {
    const folder = file === 'lib.rs' ? '' : file.replace(/\.rs$/, sep);
    for (const [, name] of readFileSync(join(SRC, file), 'utf8').matchAll(TEST_ONLY_FILE)) {
      testOnly.add(`${folder}${name}.rs`);
    }
  }
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    if (file === 'lib.rs' || testOnly.has(file)) continue;
    const module = file.split(sep)[0]!.replace(/\.rs$/, '');
    const named = graph.get(module) ?? new Set<string>();
    const text = readFileSync(join(SRC, file), 'utf8').split(TEST_ONLY_BLOCK)[0]!;
    for (const [, other] of text.matchAll(/\bcrate::(\w+)/g)) {
      if (other !== module) named.add(other!);
    }
    graph.set(module, named);
  }
  assert.ok(testOnly.has(join('keyspace', 'tests.rs')), 'found the files compiled for the tests alone');
  return graph;
}

/** A path that comes back to its start, or null. */
function loop(graph: Map<string, Set<string>>): string[] | null {
  const done = new Set<string>();
  const visit = (module: string, path: string[]): string[] | null => {
    if (path.includes(module)) return [...path.slice(path.indexOf(module)), module];
    if (done.has(module)) return null;
    for (const next of graph.get(module) ?? []) {
      const found = visit(next, [...path, module]);
      if (found) return found;
    }
    done.add(module);
    return null;
  };
  for (const module of graph.keys()) {
    const found = visit(module, []);
    if (found) return found;
  }
  return null;
}

test('the native module’s files import one another without a loop', () => {
  const graph = uses();
  assert.ok(graph.size >= 8, `read the modules (${[...graph.keys()].join(', ')})`);
  assert.ok(graph.get('store')?.has('strings'), 'store names strings: the graph is read');
  assert.deepEqual(loop(graph), null);
});

test('the loop finder finds a loop', () => {
  const graph = new Map([
    ['a', new Set(['b'])],
    ['b', new Set(['c'])],
    ['c', new Set(['a'])],
  ]);
  assert.deepEqual(loop(graph), ['a', 'b', 'c', 'a']);
});
