// The components' scripts build HTML only with the escaping tag (src/lib/html.ts): no string or plain
// template literal that opens a tag, no esc( left to forget, and innerHTML written only by show(). A
// line-by-line read of the source, so a new view written the old way fails here before it ships.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../../src/components');
// copy-code.ts puts back the button's own markup, read from the button a moment before: nothing is built.
const RESTORES_ITS_OWN = new Set(['blocks/copy-code.ts']);

/** Every script under `dir`, as a path relative to it. */
function scripts(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
}

/** Each line of code with its number, comments left out (a comment may well show a tag). */
function codeLines(file: string): Array<[number, string]> {
  return readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .map((line, i): [number, string] => [i + 1, line])
    .filter(([, line]) => !/^\s*(\/\/|\/?\*)/.test(line));
}

test('the scan finds the views it guards', () => {
  const files = scripts(ROOT);
  for (const view of ['explorer/executor-runs.ts', 'explorer/node-view.ts', 'console/console-panel.ts'])
    assert.ok(files.includes(view), view);
});

test('no string or plain template literal opens a tag: every one is markup`…`', () => {
  const found: string[] = [];
  for (const file of scripts(ROOT))
    for (const [n, line] of codeLines(file))
      for (const match of line.matchAll(/(\w*)([`'"])<[a-zA-Z/!]/g))
        if (!(match[1] === 'markup' && match[2] === '`')) found.push(`${file}:${n}: ${line.trim()}`);
  assert.deepEqual(found, []);
});

test('no esc( call and no innerHTML written outside show()', () => {
  const found: string[] = [];
  for (const file of scripts(ROOT))
    for (const [n, line] of codeLines(file)) {
      if (/\besc\(/.test(line)) found.push(`${file}:${n}: ${line.trim()}`);
      if (/\.innerHTML\s*=[^=]/.test(line) && !RESTORES_ITS_OWN.has(file))
        found.push(`${file}:${n}: ${line.trim()}`);
    }
  assert.deepEqual(found, []);
});
