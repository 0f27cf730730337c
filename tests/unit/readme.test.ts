// The README is read by a newcomer in five minutes, and its "What is where" table is the map they trust:
// it stays short, and every file and folder it names is where it says.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const TOP = /^(server|src|content|public|docs|tests|bench|scripts|native-module|\.ci)\//;
const FILE = /^[\w.-]+\.(ts|lua|rs|mjs|sh|md|json|css|conf|astro|txt)$/;

/** Whether a file named `name` lies anywhere below `folder`. */
function foundBelow(folder: string, name: string): boolean {
  const at = join(ROOT, folder);
  if (!existsSync(at) || !statSync(at).isDirectory()) return false;
  return readdirSync(at, { recursive: true, encoding: 'utf8' }).some(
    (path) => path.split('/').pop() === name,
  );
}

it('the README stays under 200 lines', () => {
  const lines = README.split('\n').length;
  assert.ok(lines <= 200, `README.md has ${lines} lines`);
});

it('every path the "What is where" table names exists, and every file it names lies in its row’s folders', () => {
  const table = README.slice(
    README.indexOf('## What is where'),
    README.indexOf('\n## ', README.indexOf('## What is where') + 1),
  );
  const rows = table.split('\n').filter((line) => line.startsWith('| `'));
  assert.ok(rows.length >= 20, `read the table (${rows.length} rows)`);
  const missing: string[] = [];
  for (const row of rows) {
    const [, first, rest] = row.split('|').map((cell) => cell.trim());
    const folders = [...first!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    for (const folder of folders) if (!existsSync(join(ROOT, folder))) missing.push(folder);
    for (const [, token] of rest!.matchAll(/`([^`\s]+)`/g)) {
      if (TOP.test(token!)) {
        if (!existsSync(join(ROOT, token!.replace(/[,:;]$/, '')))) missing.push(token!);
      } else if (FILE.test(token!)) {
        const dirs = [...folders.filter((f) => f.endsWith('/')), 'server/', 'src/', 'scripts/', 'tests/'];
        if (!dirs.some((dir) => foundBelow(dir, token!))) missing.push(`${token} (${first})`);
      }
    }
  }
  assert.deepEqual(missing, []);
});
