// The catalogue as markdown, for llms-full.txt: the EMQ.* arity table and the error codes.

import { commandArities } from './commands.ts';
import { ERROR_CODES } from './error-codes.ts';

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

export function errorCodesMarkdown(): string {
  const rows = ERROR_CODES.map(
    (e) =>
      `| \`${e.code}\`${e.status ? ` (${e.status})` : ''} | ${e.by.join(', ')} | ${cell(e.when)} | \`${cell(e.text)}\` |`,
  );
  return [
    '## Error codes',
    'Every error a call can meet, who answers it — the host (before any command is sent), a Lua script, the native module, the server itself, a connector’s fence on `{emq}:version`, or the explorer’s JSON API (`{"error":{"code","message"}}`, with the HTTP status) — when, and the exact text, with `<name>` where a value is filled in. The native module checks in this order and the first failure replies: key count → layout → server mode → wire identity → the transition; a refusal writes nothing.',
    '| code | answered by | when | exact text |\n|---|---|---|---|\n' + rows.join('\n'),
  ].join('\n\n');
}
