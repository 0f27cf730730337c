// The console's commands are one row each (server/contract/console/commands.ts), and everything else
// about them is read from the rows: what plans, the names a refusal lists on each target (issue: on the
// cluster they named DEL, which the cluster had just refused), the explorer account's ACL on each kind
// of node, and docs/api.md's table. Each row's example is run on a real server, on every target it runs
// on, by tests/explorer/console-cluster.test.ts.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { plan } from '../../server/contract/console/allow-list.ts';
import { withConsoleTable } from '../../server/contract/console/command-doc.ts';
import {
  allowedForms,
  allowedNames,
  CONSOLE_COMMANDS,
  rowOf,
} from '../../server/contract/console/commands.ts';
import { splitLine } from '../../server/contract/console/split-line.ts';
import { explorerRules } from '../../server/explorer/explorer-user.ts';

const NODES = ['standalone', 'cluster'] as const;
const rows = Object.entries(CONSOLE_COMMANDS);

describe('the console’s commands, one row each', () => {
  it('plans each row’s example on the targets it runs on, by that row, and refuses it by name on the others', () => {
    for (const [name, row] of rows) {
      for (const node of NODES) {
        const planned = plan(splitLine(row.example), node);
        if (row.runsOn.includes(node)) {
          assert.ok(planned.ok, `${name} on ${node}: ${planned.ok ? '' : planned.message}`);
          assert.equal(rowOf(planned.command), row, name);
          assert.equal(planned.writes, row.writes, name);
        } else {
          assert.ok(!planned.ok && planned.code === 'NOT_ALLOWED', `${name} on ${node} is refused`);
          assert.ok(planned.message.includes(row.elsewhere!), name);
        }
      }
    }
  });

  it('lists, after each refusal, only what runs on the target it was refused on', () => {
    for (const node of NODES) {
      const names = allowedNames(node);
      const refused = plan(splitLine('FLUSHALL'), node);
      assert.ok(!refused.ok && refused.message.endsWith(`Allowed: ${names}`), node);
      const runs = new Set(rows.filter(([, row]) => row.runsOn.includes(node)).map(([, row]) => row.says));
      assert.deepEqual(names.split(', '), [...runs]);
      assert.deepEqual(
        allowedForms(node),
        rows.filter(([, row]) => row.runsOn.includes(node)).map(([, row]) => row.form),
      );
    }
    // On the cluster, a write is refused and the names it lists do not hold it.
    const del = plan(splitLine('DEL emq:{orders}:pending'), 'cluster');
    assert.ok(!del.ok && del.code === 'NOT_ALLOWED');
    const listed = /Allowed: (.*)$/.exec(del.message)![1]!.split(', ');
    for (const write of ['DEL', 'HSET', 'ZADD', 'SCAN', 'DBSIZE', 'SCRIPT <verb>'])
      assert.ok(!listed.includes(write), `${write} listed on the cluster`);
    assert.ok(listed.includes('GET') && listed.includes('CLUSTER KEYSLOT'));
    assert.ok(allowedNames('standalone').split(', ').includes('DEL'));
  });

  it('grants the explorer account each row’s ACL on the kind of node it runs on, and nothing of the others', () => {
    for (const node of NODES) {
      const rules = explorerRules('pw', true, node === 'cluster');
      const selector = rules.find((rule) => rule.startsWith('(~* '))!.slice(1, -1);
      for (const [name, row] of rows) {
        for (const rule of row.acl) {
          if (!row.runsOn.includes(node)) continue;
          const granted = row.anyKey ? selector.split(' ').includes(`+${rule}`) : rules.includes(`+${rule}`);
          assert.ok(granted, `+${rule} for ${name} on ${node}`);
        }
      }
    }
    // What walks a node's keyspace runs on the standalone only, and the cluster's account lacks it.
    const cluster = explorerRules('pw', true, true);
    for (const walk of ['+scan', '+dbsize']) assert.ok(!cluster.includes(walk), walk);
  });

  it('writes docs/api.md’s table of the console’s commands (regenerate: node scripts/api-doc.ts)', () => {
    const api = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    assert.equal(api, withConsoleTable(api), 'docs/api.md is stale: node scripts/api-doc.ts');
    for (const [, row] of rows)
      assert.ok(api.includes(`| \`${row.form.replace(/\|/g, '\\|')}\` |`), row.form);
  });
});
