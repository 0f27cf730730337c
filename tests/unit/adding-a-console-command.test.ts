// Adding a console command is one row (server/contract/console/commands.ts) and its test: in a copy of
// the tree, a ZCARD row is added and nothing else is edited; then the console plans ZCARD on both
// targets, every refusal lists it, the explorer account is granted it, and docs/api.md's table is stale
// until `node scripts/api-doc.ts` writes its row. (Its test is the row's example: the real-server test of
// every row, tests/explorer/console-cluster.test.ts, runs it as it runs the others.) The copy is removed after.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { copyOfProject } from '../support/project-copy.ts';

let copy = '';

const ZCARD_ROW = `  ZCARD: read('ZCARD', 'ZCARD key', [1, 1], 'pending', \`ZCARD \${PENDING}\`, (_, reply) =>
    reply === 0 ? 'there is no such key here, or it is empty' : undefined,
  ),
`;

/** What the copy's own modules say once the row is in, read by a process of its own. */
const PROBE = `
import { plan } from './server/contract/console/allow-list.ts';
import { allowedNames } from './server/contract/console/commands.ts';
import { withConsoleTable } from './server/contract/console/command-doc.ts';
import { splitLine } from './server/contract/console/split-line.ts';
import { explorerRules } from './server/explorer/explorer-user.ts';
import { readFileSync } from 'node:fs';
const api = readFileSync('docs/api.md', 'utf8');
const planned = (node) => plan(splitLine('ZCARD emq:{orders}:pending'), node);
console.log(JSON.stringify({
  standalone: planned('standalone').ok,
  cluster: planned('cluster').ok,
  names: [allowedNames('standalone'), allowedNames('cluster')],
  acl: [explorerRules('pw', true, false).includes('+zcard'), explorerRules('pw', true, true).includes('+zcard')],
  fresh: withConsoleTable(api) === api,
  row: api.includes('| \`ZCARD key\` | standalone, cluster | no |'),
}));
`;

const node = process.execPath;
function probe(): Record<string, unknown> {
  const run = spawnSync(node, ['probe.ts'], { cwd: copy, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

before(() => {
  copy = copyOfProject(
    'adding-a-console-command',
    ['server', 'docs', 'scripts', 'package.json'],
    ['node_modules'],
  );
  writeFileSync(join(copy, 'probe.ts'), PROBE);
});
after(() => rmSync(copy, { recursive: true, force: true }));

test('a console command is one row: the allow-list, the names, the ACL and docs/api.md follow from it', () => {
  const before = probe();
  assert.deepEqual([before.standalone, before.cluster], [false, false], 'ZCARD is not a console command yet');

  const rows = join(copy, 'server', 'contract', 'console', 'commands.ts');
  const text = readFileSync(rows, 'utf8');
  assert.ok(text.includes('  SCAN: command({'));
  writeFileSync(rows, text.replace('  SCAN: command({', `${ZCARD_ROW}  SCAN: command({`));

  const added = probe();
  assert.equal(added.standalone, true);
  assert.equal(added.cluster, true);
  for (const names of added.names as string[]) assert.match(names, /, ZCARD, /);
  assert.deepEqual(added.acl, [true, true]);
  assert.equal(added.fresh, false, 'docs/api.md is stale until it is regenerated');

  const regenerated = spawnSync(node, ['scripts/api-doc.ts'], { cwd: copy, encoding: 'utf8' });
  assert.equal(regenerated.status, 0, regenerated.stderr);
  const documented = probe();
  assert.equal(documented.fresh, true);
  assert.equal(documented.row, true);
});
