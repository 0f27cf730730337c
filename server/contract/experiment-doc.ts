// docs/api.md's table of experiments, from the one table (experiment-table.ts): a row each, in its
// order, with the fields the catalogue describes and what the result holds. Written by
// scripts/api-doc.ts; tests/unit/experiment-table.test.ts fails while the committed page differs.

import { EXPERIMENT_NAMES, rowOf } from './experiment-table.ts';
import { withTable } from './generated-table.ts';

export const API_TABLE_START =
  '<!-- generated from server/contract/experiment-table.ts by `node scripts/api-doc.ts`: edit the table, not these rows -->';

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The experiments as a markdown table: name, input (each field and what it takes), the result. */
export function experimentTable(): string {
  const rows = EXPERIMENT_NAMES.map((name) => {
    const { input, result } = rowOf(name);
    const fields = Object.entries(input).map(([field, what]) => `\`${field}\`: ${what}`);
    return `| \`${name}\` | ${cell(fields.join('; ') || 'none (`{}`)')} | ${cell(result)} |`;
  });
  return ['| experiment | input | what the result holds |', '|---|---|---|', ...rows].join('\n');
}

/** docs/api.md with its table of experiments rebuilt from the one table. */
export function apiDoc(page: string): string {
  return withTable(page, 'docs/api.md', API_TABLE_START, experimentTable());
}
