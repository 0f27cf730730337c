// The error-code catalogue (server/contract/catalogue/error-codes.ts) against what really answers: the
// host's own errors, the API's refusals as answerExperiment sends them, and every refusal code in the
// source; and docs/wire.md's error table, generated from it. The catalogue is what llms-full.txt and GET
// /api/experiments publish; tests/native/error-texts.test.ts holds the native module's and the scripts'
// replies to it on a real server.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { commandArities } from '../../server/contract/catalogue/commands.ts';
import { ERROR_CODES, type ErrorCode } from '../../server/contract/catalogue/error-codes.ts';
import { WIRE_TABLE_END, WIRE_TABLE_START, wireDoc } from '../../server/contract/catalogue/markdown.ts';
import { rowsFor } from '../support/catalogue-rows.ts';
import { plan } from '../../server/contract/console/allow-list.ts';
import { answerExperiment, catalogue } from '../../server/api/api.ts';
import { LIMITS } from '../../server/contract/limits.ts';
import { CORE_TRANSITIONS, TRANSITIONS } from '../../server/contract/transitions.ts';
import { assertBrandedId, queueKey, validQueue, type KeyType } from '../../server/contract/keyspace/index.ts';
import { KeyspaceError } from '../../server/contract/keyspace/errors.ts';
import { catalogueText, statusOf } from '../../server/contract/catalogue/catalogue-text.ts';
import type { StatusCode } from '../../server/contract/catalogue/error-codes.ts';
import { RunTimeoutError } from '../../server/catalogue/run-timeout.ts';
import { classify } from '../../server/api/failures.ts';
import { DECODE_ROUNDS } from '../../server/front/canonical-path.ts';
import type { RepairReport } from '../../server/sandbox/cluster-repair.ts';
import {
  ClusterDegradedError,
  MigrationFailedError,
  SinglePrimaryError,
} from '../../server/explorer/slot-migration.ts';
import { ClusterBusyError } from '../../server/wire/cluster-wire.ts';
import { PoolBusyError, SandboxLimitError } from '../../server/explorer/keyspace-pool.ts';
import { Valkey9UnavailableError } from '../../server/sandbox/valkey9-build.ts';
import { LineFullError, LockBusyError } from '../../server/cluster/run-lock.ts';
import { ShareTakenError } from '../../server/explorer/reader-share.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

function files(dir: string, ext: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(ext))
    .map((f) => join(dir, f));
}

describe('the error-code catalogue', () => {
  it('writes docs/wire.md’s error table (regenerate: node scripts/wire-doc.ts), and wire.md writes no text again', () => {
    const wire = read('docs/wire.md');
    assert.equal(wire, wireDoc(wire), 'docs/wire.md is stale: node scripts/wire-doc.ts');
    const start = wire.indexOf(WIRE_TABLE_START);
    const outside = wire.slice(0, start) + wire.slice(wire.indexOf(WIRE_TABLE_END, start));
    for (const row of ERROR_CODES) {
      // The text up to its first value: enough to be the text, not only its class.
      const head = row.text.split('<', 1)[0]!;
      if (head.length < 20) continue;
      assert.ok(!outside.includes(head), `docs/wire.md writes ${row.code}'s text outside its table: ${head}`);
    }
  });

  it('matches the host’s own errors, thrown by the keyspace module before any wire', () => {
    const thrown = (fn: () => unknown): KeyspaceError => {
      try {
        fn();
      } catch (error) {
        assert.ok(error instanceof KeyspaceError);
        return error;
      }
      assert.fail('no error thrown');
    };
    const cases = [
      () => validQueue(''),
      () => validQueue('a{b'),
      () => validQueue('a}b'),
      () => validQueue('a\0b'),
      () => validQueue('a\ud800'),
      () => assertBrandedId('JOB1', 'job id'),
      () => assertBrandedId('USR0Nb1VTbfnu!', 'group'),
      () => queueKey('orders', 'nope' as KeyType),
    ];
    const seen = new Set<string>();
    for (const fn of cases) {
      const error = thrown(fn);
      assert.equal(rowsFor(error.code, error.message).length, 1, `${error.code}: ${error.message}`);
      seen.add(error.code);
    }
    const hostCodes = ERROR_CODES.filter((e) => e.by.includes('host')).map((e) => e.code);
    assert.deepEqual([...seen].sort(), [...new Set(hostCodes)].sort(), 'every host code was produced');
  });

  it('has a row for each way a run is told the sandbox is busy, and the API answers each one so', () => {
    for (const error of [
      new PoolBusyError(5000),
      new ClusterBusyError(5000),
      new LockBusyError('slot:105', 10000),
      new LineFullError('migration', 12, 10_800, 10_000),
    ]) {
      const failure = classify(error);
      assert.equal(failure.code, 'BUSY', error.message);
      assert.equal(failure.status, 503);
      assert.ok(failure.retryAfter !== undefined && failure.retryAfter >= 1);
      const rows = rowsFor('BUSY', failure.message);
      assert.equal(rows.length, 1, failure.message);
      assert.equal(rows[0]!.status, failure.status);
    }
  });

  it('answers a reader’s second reshard as its row says: 429 RESHARD_QUEUED with retry-after', () => {
    const failure = classify(new ShareTakenError());
    assert.equal(failure.code, 'RESHARD_QUEUED');
    assert.equal(failure.status, 429);
    assert.equal(failure.retryAfter, 1);
    const rows = rowsFor('RESHARD_QUEUED', failure.message);
    assert.equal(rows.length, 1, failure.message);
    assert.equal(rows[0]!.status, failure.status);
  });

  it('matches the API’s refusals as the handler sends them, status included', async () => {
    const post = (name: string, body: string, type = 'application/json', method = 'POST') =>
      answerExperiment(
        {
          method,
          contentType: type,
          readBody: async (limit) => (Buffer.byteLength(body) > limit ? null : Buffer.from(body)),
        },
        name,
      );
    const responses = [
      await post('nope', '{}'),
      await post('keys', '', 'application/json', 'GET'),
      await post('keys', '{}', 'text/plain'),
      await post('keys', 'x'.repeat(LIMITS.bodyBytes + 1)),
      await post('keys', '{'),
      await post('keys', '{"queue":"orders","extra":1}'),
    ];
    const codes: string[] = [];
    for (const response of responses) {
      const problem = response.body as { code: string; detail: string };
      const rows = rowsFor(problem.code, problem.detail);
      assert.equal(rows.length, 1, `${problem.code}: ${problem.detail}`);
      assert.equal(rows[0]!.status, response.status, problem.code);
      codes.push(problem.code);
    }
    assert.deepEqual(codes, [
      'UNKNOWN_EXPERIMENT',
      'METHOD',
      'CONTENT_TYPE',
      'TOO_LARGE',
      'BAD_JSON',
      'BAD_INPUT',
    ]);
  });

  it('matches the console’s refusals as its allow-list plans them', () => {
    const line = (...words: string[]) => words.map((w) => new TextEncoder().encode(w));
    const codes = new Set<string>();
    for (const argv of [
      line('FLUSHALL'),
      line('EVAL', 'return 1', '0'),
      line('GET'),
      line('GET', 'other:key'),
      line('HSET', 'emq:{orders}:nope', 'f', 'v'),
    ]) {
      const planned = plan(argv);
      assert.equal(planned.ok, false);
      if (planned.ok) continue;
      assert.equal(rowsFor(planned.code, planned.message).length, 1, `${planned.code}: ${planned.message}`);
      codes.add(planned.code);
    }
    assert.deepEqual([...codes].sort(), ['BAD_ARGUMENTS', 'KEY_NOT_ALLOWED', 'NOT_ALLOWED']);
  });

  it('lists every refusal code the API source can send, with its status', () => {
    const sources = files('server', '.ts');
    let found = 0;
    for (const file of sources) {
      const text = read(file);
      // A status written by hand beside a code must be the row's.
      for (const [, status, code] of text.matchAll(/(\d{3}),\s*(?:\{[^}]*?)?(?:code:\s*)?'([A-Z_]+)'/g)) {
        found++;
        const row = ERROR_CODES.find((e) => e.code === code && e.by.includes('API'));
        assert.ok(row, `${file} sends ${code}: add it to server/contract/catalogue/error-codes.ts`);
        assert.equal(row.status, Number(status), `${code}'s status in ${file}`);
      }
      // A refusal or failure built from its row takes the row's status: the row must be the API's, with one.
      for (const [, code] of text.matchAll(/\b(?:refusal|refusalSaying|failure|statusOf)\(\s*'([A-Z_]+)'/g)) {
        found++;
        const rows = ERROR_CODES.filter((e) => e.code === code && e.by.includes('API'));
        assert.ok(
          rows.length > 0,
          `${file} sends ${code}: add it to server/contract/catalogue/error-codes.ts`,
        );
        assert.ok(
          rows[0]!.status !== undefined,
          `${code} (sent by ${file}) has its HTTP status in the catalogue`,
        );
      }
    }
    assert.ok(found >= 10, `found the refusals (${found})`);
    // One status per code, so a code's status cannot depend on which of its rows was meant.
    for (const code of new Set(ERROR_CODES.filter((e) => e.status !== undefined).map((e) => e.code))) {
      const statuses = new Set(ERROR_CODES.filter((e) => e.code === code).map((e) => e.status));
      assert.equal(statuses.size, 1, `${code} has one status`);
      assert.equal(statusOf(code as StatusCode), [...statuses][0]);
    }
  });

  it('builds each failure’s text from its row: what is sent is a row, and a value missing or left over is refused', () => {
    const failures: [string, Error][] = [
      ['TIMEOUT', new RunTimeoutError(6000)],
      [
        'RESHARD_FAILED',
        new MigrationFailedError(105, new Error('ERR boom'), { left: [] } as unknown as RepairReport),
      ],
      ['RESHARD_FAILED', new MigrationFailedError(105, new Error('ERR boom'), null)],
      ['SANDBOX_DEGRADED', new ClusterDegradedError(['slot 1 has two owners'])],
      ['RESHARD_IMPOSSIBLE', new SinglePrimaryError(105, '127.0.0.1:7000')],
    ];
    for (const [code, error] of failures) {
      const failure = classify(error);
      assert.equal(failure.code, code, error.message);
      const rows = rowsFor(code, error.message);
      assert.equal(rows.length, 1, error.message);
      assert.equal(rows[0]!.status, failure.status);
    }
    assert.equal(
      new RunTimeoutError(6000).message,
      'the run took over 6 s and was ended; its keyspace was flushed',
    );
    for (const [error, code] of [
      [new Error('CLUSTERDOWN the cluster did not come back in time'), 'SANDBOX_DOWN'],
      [Object.assign(new Error('LOADING Valkey is loading'), { name: 'ReplyError' }), 'SANDBOX_BUSY'],
      [new Error('write EPIPE'), 'SANDBOX_DOWN'],
      [new Error('a bug'), 'INTERNAL'],
    ] as const) {
      const failure = classify(error);
      assert.equal(failure.code, code, error.message);
      assert.equal(rowsFor(code, failure.message).length, 1, failure.message);
    }
    assert.throws(() => catalogueText('TIMEOUT', {}, 'keyspace'), {
      message: 'TIMEOUT: no value for <seconds>',
    });
    assert.throws(() => catalogueText('TIMEOUT', { seconds: 1, ms: 2 }, 'keyspace'), {
      message: 'TIMEOUT: its text has no <ms>',
    });
    assert.throws(() => catalogueText('BUSY', { ms: 1 }), { message: /has 4 rows for BUSY; exactly one/ });
    assert.equal(
      catalogueText('BAD_PATH', { path: '"/x"' }, 'depth').includes(`${DECODE_ROUNDS} times`),
      true,
    );
  });

  it('builds the pool’s, the sandbox limit’s and Valkey 9.1’s failures from their rows, and the API sends that text', () => {
    const limit = { keyspaces: '1 keyspace', count: 2 };
    const refused = { command: 'SELECT 17', reply: 'ERR DB index is out of range' };
    const why = 'it is not built (no /nowhere; scripts/valkey9.sh builds it)';
    const cases: [Error, string, string][] = [
      [new PoolBusyError(5000), 'BUSY', catalogueText('BUSY', { ms: 5000 }, 'pool')],
      [new SandboxLimitError(limit), 'SANDBOX_LIMIT', catalogueText('SANDBOX_LIMIT', limit, 'keyspaces')],
      [new SandboxLimitError(refused), 'SANDBOX_LIMIT', catalogueText('SANDBOX_LIMIT', refused, 'refused')],
      [new Valkey9UnavailableError('building'), 'VALKEY9_BUILDING', catalogueText('VALKEY9_BUILDING')],
      [new Valkey9UnavailableError('starting'), 'VALKEY9_STARTING', catalogueText('VALKEY9_STARTING')],
      [
        new Valkey9UnavailableError('absent', why),
        'VALKEY9_UNAVAILABLE',
        catalogueText('VALKEY9_UNAVAILABLE', { why }),
      ],
    ];
    for (const [error, code, text] of cases) {
      assert.equal(error.message, text);
      const failure = classify(error);
      assert.equal(failure.code, code, text);
      assert.equal(failure.message, text);
      assert.equal(rowsFor(code, text).length, 1, text);
    }
    assert.equal(
      new SandboxLimitError(refused).message,
      'the sandbox Valkey cannot give this run its keyspace: SELECT 17 was refused (ERR DB index is out of range)',
    );
  });

  it('no API row’s text is written by hand in server/: each is built from its row', () => {
    let looked = 0;
    const sources = files('server', '.ts')
      .filter((file) => !file.endsWith('catalogue/error-codes.ts'))
      .map((file) => [file, read(file)] as const);
    for (const row of ERROR_CODES.filter((e) => e.by.includes('API'))) {
      // The text up to its first value, as a string literal would start with it.
      const head = row.text.split('<', 1)[0]!;
      if (head.length < 16) continue;
      looked += 1;
      for (const [file, text] of sources) {
        for (const quote of ["'", '"', '`']) {
          assert.ok(!text.includes(quote + head), `${file} writes ${row.code}'s text by hand: ${head}`);
        }
      }
    }
    assert.ok(looked >= 20, `looked for ${looked} texts`);
  });

  it('is published by GET /api/experiments with the EMQ.* arity table', async () => {
    const body = catalogue().body as { errors: ErrorCode[]; commands: unknown[] };
    assert.deepEqual(body.errors, ERROR_CODES);
    assert.deepEqual(body.commands, commandArities());
  });
});

describe('the EMQ.* arity table', () => {
  it('is the transition table: numkeys, keys, args and words per command', () => {
    const rows = commandArities();
    assert.deepEqual(
      rows.map((r) => r.command),
      CORE_TRANSITIONS.map((t) => TRANSITIONS[t].command),
    );
    for (const row of rows) {
      const t = TRANSITIONS[row.transition];
      assert.equal(row.numkeys, t.keys.length);
      assert.equal(row.words, 2 + t.keys.length + t.args.length);
      assert.equal(row.usage.split(' ').length, row.words, row.usage);
      // the script's file name carries its numkeys: enqueue-2.lua
      assert.equal(row.script, `${row.transition}-${row.numkeys}.lua`);
    }
    assert.equal(rows.find((r) => r.command === 'EMQ.RETRY')!.words, 12);
  });
});
