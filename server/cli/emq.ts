#!/usr/bin/env node
// emq — the keyspace on the command line, for engineers:
//   emq keys <queue> [--id <branded id>] [--json]   every key of the queue, with its slot
//   emq slot <key>… [--json]                         each key's hashtag and slot
//   emq help | -h | --help, emq --version
// Bad input exits 2 with the same error the library gives; a wrong flag or command exits 2 saying, in
// emq's own words, what was wrong and what it takes (never Node's parseArgs wording).

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { nearestCommands } from '../contract/console/nearest-command.ts';
import {
  hashtag,
  jobKey,
  KeyspaceError,
  queueKeys,
  slot,
  validQueue,
  versionKey,
} from '../contract/keyspace/index.ts';

const USAGE = `usage:
  emq keys <queue> [--id <branded id>] [--json]   every key of the queue, with its slot
  emq slot <key>… [--json]                         each key's hashtag and slot
  emq help | -h | --help                           this help
  emq --version                                    the version of emq`;

const HELP = `emq — where every key of an EchoMQ queue lives: its keys, hashtags and cluster slots,
computed by the project's own keyspace module (no server is asked).

${USAGE}

options:
  --id <branded id>   (keys) add the job row of this id, e.g. JOB0Nb1VTbfnu4
  --json              machine-readable output; a refusal is {"error":{"code","message"}} on stderr
  -h, --help          this help
  --version           the version of emq

examples:
  emq keys orders                         every key of the queue orders, with its slot
  emq keys orders --id JOB0Nb1VTbfnu4     the same, with the job row of that id
  emq slot 123456789 'foo{}{bar}'         each key's hashtag and slot (12739, then the whole key's)
  emq keys fills --json                   the same as JSON, for scripts

exit status: 0 done; 2 a bad queue name, id, command or option (the message says which and why).`;

/** The flags emq takes, as they are written on the command line. */
const OPTIONS = {
  id: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;
const FLAGS = ['--id', '--json', '--help', '-h', '--version'];
const COMMANDS = ['keys', 'slot', 'help'];

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return `emq ${pkg.version as string}`;
}

interface Row {
  key: string;
  type: string;
  hashtag: string;
  slot: number;
}

function row(key: string, type: string): Row {
  return { key, type, hashtag: hashtag(key), slot: slot(key) };
}

function keysOf(queue: string, id: string | undefined): Row[] {
  validQueue(queue);
  const rows = queueKeys(queue).map(({ key, type }) => row(key, type));
  if (id !== undefined) rows.push(row(jobKey(queue, id), 'job row'));
  rows.push(row(versionKey(), 'reserve: wire identity'));
  return rows;
}

function table(rows: Row[]): string {
  const width = Math.max(...rows.map((r) => r.key.length));
  return rows.map((r) => `${r.key.padEnd(width)}  slot ${String(r.slot).padStart(5)}  ${r.type}`).join('\n');
}

/** A usage mistake: exit 2, what was wrong, then how to ask for help. */
function mistake(what: string): { code: number; out: string } {
  return { code: 2, out: `emq: ${what}\n${USAGE}\nRun 'emq --help' for examples.` };
}

/** " (did you mean --json?)" when `typed` is one or two edits from a name emq knows. */
function didYouMean(typed: string, known: readonly string[]): string {
  const near = nearestCommands(typed, known);
  return near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : '';
}

export function main(argv: string[]): { code: number; out: string } {
  // Not strict: every token comes back, so an unknown flag or a missing value is said in emq's words.
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (!Object.hasOwn(OPTIONS, token.name)) {
      return mistake(
        `unknown option ${token.rawName}${didYouMean(token.rawName, FLAGS)}; emq takes ${FLAGS.join(', ')}`,
      );
    }
    if (token.name === 'id' && typeof token.value !== 'string')
      return mistake('--id needs a value: a branded job id, e.g. --id JOB0Nb1VTbfnu4');
    if (token.name !== 'id' && token.value !== undefined)
      return mistake(`${token.rawName} takes no value (found "${token.value}")`);
  }
  const [command, ...rest] = positionals;
  if (values.help || command === 'help') return { code: 0, out: HELP };
  if (values.version) return { code: 0, out: version() };
  const id = typeof values.id === 'string' ? values.id : undefined;
  const json = values.json === true;
  if (command === undefined) return mistake('no command given: emq keys <queue> or emq slot <key>…');
  if (!COMMANDS.includes(command))
    return mistake(
      `unknown command "${command}"${didYouMean(command, COMMANDS)}; the commands are keys and slot`,
    );
  if (command === 'keys' && rest.length !== 1)
    return mistake(`keys takes one queue name, found ${rest.length}: emq keys <queue>`);
  if (command === 'slot' && rest.length === 0) return mistake('slot takes one key or more: emq slot <key>…');
  if (command === 'slot' && id !== undefined)
    return mistake('--id belongs to keys; slot takes keys only: emq slot <key>…');
  try {
    if (command === 'keys') {
      const rows = keysOf(rest[0]!, id);
      return { code: 0, out: json ? JSON.stringify({ queue: rest[0], keys: rows }, null, 2) : table(rows) };
    }
    const rows = rest.map((key) => ({ key, hashtag: hashtag(key), slot: slot(key) }));
    if (json) return { code: 0, out: JSON.stringify(rows, null, 2) };
    return {
      code: 0,
      out: rows.map((r) => `${r.key}  hashtag ${JSON.stringify(r.hashtag)}  slot ${r.slot}`).join('\n'),
    };
  } catch (error) {
    if (!(error instanceof KeyspaceError)) throw error;
    const out = json
      ? JSON.stringify({ error: { code: error.code, message: error.message } })
      : `emq: ${error.message}`;
    return { code: 2, out };
  }
}

if (import.meta.main) {
  const { code, out } = main(process.argv.slice(2));
  (code === 0 ? process.stdout : process.stderr).write(out + '\n');
  process.exitCode = code;
}
