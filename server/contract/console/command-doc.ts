// docs/api.md's table of the console's commands, from their rows (commands.ts): each command's form,
// the targets it runs on, what its keys must be, and the explorer account's ACL for it. Written by
// scripts/api-doc.ts; tests/unit/console-commands.test.ts fails while the committed page differs.

import { withTable } from '../generated-table.ts';
import { CONSOLE_COMMANDS } from './commands.ts';

const CONSOLE_TABLE_START =
  '<!-- generated from server/contract/console/commands.ts by `node scripts/api-doc.ts`: edit the rows, not this table -->';

const cell = (text: string) => text.replace(/\|/g, '\\|');

const KEY_RULE = {
  namespace: 'under `emq:` or `{emq}:`',
  grammar: 'of the grammar',
  any: 'any',
} as const;

function consoleTable(): string {
  const rows = Object.values(CONSOLE_COMMANDS).map((row) => {
    const keys = row.keys === 'none' ? '—' : KEY_RULE[row.keyRule];
    const acl = row.acl.map((rule) => `\`+${cell(rule)}\`${row.anyKey ? ' (any key)' : ''}`).join(', ');
    return `| \`${cell(row.form)}\` | ${row.runsOn.join(', ')} | ${row.writes ? 'yes' : 'no'} | ${keys} | ${acl} |`;
  });
  return [
    '| command | runs on | writes | keys | the explorer account’s ACL |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** docs/api.md with its table of the console's commands rebuilt from the rows. */
export function withConsoleTable(page: string): string {
  return withTable(page, 'docs/api.md', CONSOLE_TABLE_START, consoleTable());
}
