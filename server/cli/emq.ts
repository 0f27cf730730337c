#!/usr/bin/env node
// emq — the keyspace on the command line, for engineers:
//   emq keys <queue> [--id <branded id>] [--json]   every key of the queue, with its slot
//   emq slot <key>… [--json]                         each key's hashtag and slot
// Bad input exits 2 with the same error the library gives.

import { parseArgs } from 'node:util';
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
  emq slot <key>… [--json]                         each key's hashtag and slot`;

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

export function main(argv: string[]): { code: number; out: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        id: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    return { code: 2, out: `emq: ${(error as Error).message}\n${USAGE}` };
  }
  const { positionals, values } = parsed;
  const [command, ...rest] = positionals;
  if (values.help) return { code: 0, out: USAGE };
  try {
    if (command === 'keys' && rest.length === 1) {
      const rows = keysOf(rest[0]!, values.id);
      return {
        code: 0,
        out: values.json ? JSON.stringify({ queue: rest[0], keys: rows }, null, 2) : table(rows),
      };
    }
    if (command === 'slot' && rest.length > 0 && values.id === undefined) {
      const rows = rest.map((key) => ({ key, hashtag: hashtag(key), slot: slot(key) }));
      if (values.json) return { code: 0, out: JSON.stringify(rows, null, 2) };
      return {
        code: 0,
        out: rows.map((r) => `${r.key}  hashtag ${JSON.stringify(r.hashtag)}  slot ${r.slot}`).join('\n'),
      };
    }
  } catch (error) {
    if (!(error instanceof KeyspaceError)) throw error;
    const out = values.json
      ? JSON.stringify({ error: { code: error.code, message: error.message } })
      : `emq: ${error.message}`;
    return { code: 2, out };
  }
  return { code: 2, out: `emq: expected 'keys <queue>' or 'slot <key>…'\n${USAGE}` };
}

if (import.meta.main) {
  const { code, out } = main(process.argv.slice(2));
  (code === 0 ? process.stdout : process.stderr).write(out + '\n');
  process.exitCode = code;
}
