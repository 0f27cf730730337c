// The catalogue as markdown: the EMQ.* arity table and the error codes for llms-full.txt, and the
// module's and the scripts' rows for docs/wire.md's error table (written by scripts/wire-doc.ts).

import { commandArities } from './commands.ts';
import { ERROR_CODES, type ErrorCode } from './error-codes.ts';
import { GENERATED_END, withTable } from '../generated-table.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function arityMarkdown(): string {
  const rows = commandArities().map(
    (c) =>
      `| \`${c.command}\` | ${c.numkeys} | ${c.keys.map((k) => `\`${k}\``).join(', ')} | ${c.args.join(', ')} | ${c.words} | \`${c.script}\` |`,
  );
  return [
    '## The EMQ.* commands: arity',
    'Each native command takes exactly the keys and arguments the scripted executor passes to `EVALSHA` with the script named here; `numkeys` is fixed per verb. Words counts every word of the call, the command name and `numkeys` included (`EVALSHA` adds one: the sha). A wrong key count is refused with `EMQKEY`, a wrong argument count with `ERR wrong number of arguments`.',
    '| command | numkeys | keys | args | words | script |\n|---|---|---|---|---|---|\n' + rows.join('\n'),
    '```text\n' +
      commandArities()
        .map((c) => c.usage)
        .join('\n') +
      '\n```',
  ].join('\n\n');
}

/** Rows as a table: code (and HTTP status), who answers, when, the exact text. */
function errorTable(rows: readonly ErrorCode[]): string {
  const lines = rows.map(
    (e) =>
      `| \`${e.code}\`${e.status ? ` (${e.status})` : ''} | ${e.by.join(', ')} | ${cell(e.when)} | \`${cell(e.text)}\` |`,
  );
  return '| code | answered by | when | exact text |\n|---|---|---|---|\n' + lines.join('\n');
}

export function errorCodesMarkdown(): string {
  return [
    '## Error codes',
    'Every error a call can meet, who answers it — the host (before any command is sent), a Lua script, the native module, the server itself, a connector’s fence on `{emq}:version`, or the explorer’s JSON API (problem details, `application/problem+json`: `code` and `detail`, with the HTTP status) — when, and the exact text, with `<name>` where a value is filled in. The native module checks in this order and the first failure replies: key count → layout → server mode → wire identity → the transition; a refusal writes nothing.',
    errorTable(ERROR_CODES),
  ].join('\n\n');
}

/** The lines around docs/wire.md's error table; what lies between them is the table, never edited by hand. */
export const WIRE_TABLE_START =
  '<!-- generated from server/contract/catalogue/error-codes.ts by `node scripts/wire-doc.ts`: edit the catalogue, not this table -->';
export const WIRE_TABLE_END = GENERATED_END;

/** docs/wire.md with its error table rebuilt from the rows the native module or a script answers. */
export function wireDoc(current: string): string {
  const rows = ERROR_CODES.filter((e) => e.by.includes('module') || e.by.includes('script'));
  return withTable(current, 'docs/wire.md', WIRE_TABLE_START, errorTable(rows));
}
