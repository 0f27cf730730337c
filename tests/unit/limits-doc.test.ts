// Every number the docs state about a limit is the number server/settings/ holds. docs/api.md's Limits
// table is read row by row: each row's numbers after its first cell (outside code spans) must be, in
// order, the ones listed here from the settings, and a row this test does not know fails until it is
// added. The README, docs/deploy.md, docs/sandbox.md and the rest of docs/api.md restate some; each of
// those sentences is read for its numbers too (docs/api.md's table of experiments is not among them: it is
// generated from the table of experiments, whose texts read the limits, and held fresh by its test). docs/nginx-site.conf is held to the site's own limits:
// it closes an idle connection before the site does, takes the largest body, and outwaits a run.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { projectRoot } from '../../server/project-root.ts';
import { CONSOLE_CAPS, CONSOLE_LIMITS, LAYOUT_KEYS, LIMITS } from '../../server/contract/limits.ts';
import { DEFAULTS } from '../../server/settings/environment.ts';
import {
  CLUSTER_CHECK_EVERY_MS,
  CLUSTER_CLIENT_WAIT_MS,
  CLUSTER_CLIENTS,
  ADMIN_CONNECT_MS,
  KEYSPACE_WAIT_MS,
  MAX_KEYSPACES,
  MAXMEMORY,
  RESERVED_DESCRIPTORS,
  RUN_ANSWER_MARGIN_MS,
  START_BUDGET_MS,
  SHARE_RETRY_S,
  TURN_WAIT_MS,
  LINE_LEASE_MS,
} from '../../server/settings/bounds.ts';

const read = (path: string) => readFileSync(join(projectRoot(), path), 'utf8');
const s = (ms: number) => ms / 1000;
const mb = (size: string) => Number(/^(\d+)mb$/.exec(size)![1]);

/** The numbers of a stretch of prose, in order: code spans and Valkey's version numbers left out. */
function numbersIn(text: string): number[] {
  const prose = text.replace(/`[^`]*`/g, ' ').replace(/Valkey \d+(\.\d+)?/g, 'Valkey');
  const found = prose.match(/(?<![\w.])(\d{1,3}(,\d{3})+|\d+(\.\d+)?)(?![\w])/g) ?? [];
  return found.map((n) => Number(n.replaceAll(',', '')));
}

/**
 * Each row of docs/api.md's Limits table, by its first cell: the numbers it states. A literal here is
 * a fact of the design rather than a setting (database 0 holds the leases; exit status 1).
 */
const ROWS: Record<string, number[]> = {
  'open connections, all clients': [DEFAULTS.MAX_CONNECTIONS, RESERVED_DESCRIPTORS],
  'open connections from one address (an IPv6 /64 counts as one)': [DEFAULTS.MAX_CONNECTIONS_PER_ADDRESS],
  'time to send the request headers': [s(DEFAULTS.HEADERS_TIMEOUT_MS)],
  'time to send the whole request': [s(DEFAULTS.REQUEST_TIMEOUT_MS)],
  'idle keep-alive connection': [s(DEFAULTS.KEEP_ALIVE_TIMEOUT_MS)],
  "a request body's pace": [
    s(DEFAULTS.BODY_GRACE_MS),
    DEFAULTS.BODY_BYTES_PER_S,
    4,
    s(DEFAULTS.BODY_GRACE_MS) + 4096 / DEFAULTS.BODY_BYTES_PER_S,
    s(DEFAULTS.REQUEST_TIMEOUT_MS),
  ],
  'what a client may ask: every `/api/` call, every server island': [
    DEFAULTS.EXPLORER_BURST,
    DEFAULTS.EXPLORER_RATE,
  ],
  'whose `x-forwarded-for` is believed': [],
  'open files (soft `nofile`)': [RESERVED_DESCRIPTORS],
  'request body': [LIMITS.bodyBytes, CONSOLE_LIMITS.bodyBytes],
  'queue name / any key / job id / payload / steps': [
    LIMITS.queueBytes,
    LIMITS.keyBytes,
    LIMITS.idBytes,
    LIMITS.payloadBytes,
    LIMITS.steps,
  ],
  "a run's deadline": [s(DEFAULTS.RUN_DEADLINE_MS)],
  'a lease outliving its run (process killed, flush refused)': [s(DEFAULTS.LEASE_GRACE_MS)],
  'waiting for a free keyspace': [s(KEYSPACE_WAIT_MS)],
  'cluster clients kept for runs; waiting for one': [CLUSTER_CLIENTS, s(CLUSTER_CLIENT_WAIT_MS)],
  // One per address: a fact of the design (a lock per address), not a setting.
  "reshards, each mode's line": [1, SHARE_RETRY_S, s(TURN_WAIT_MS), s(LINE_LEASE_MS)],
  // Databases 1 and up are keyspaces; fewer than 2 leaves none.
  keyspaces: [1, MAX_KEYSPACES, 1, 2],
  'a start on servers that cannot be used': [s(START_BUDGET_MS), s(ADMIN_CONNECT_MS), 1],
  'sandbox memory': [mb(MAXMEMORY.standalone), mb(MAXMEMORY.clusterNode), mb(MAXMEMORY.atomicNode)],
  "a value's size": [LIMITS.bodyBytes / 1024],
  'site processes': [DEFAULTS.WORKERS],
};

/** The Limits table of docs/api.md: each row's first cell, and the numbers of the rest. */
function limitsTable(api: string): Map<string, number[]> {
  const start = api.indexOf('## Limits');
  assert.notEqual(start, -1, 'docs/api.md has a Limits section');
  const section = api.slice(start, api.indexOf('\n## ', start + 1) >>> 0 || undefined);
  const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| limit |'));
  return new Map(
    rows.map((row) => {
      const [first, ...rest] = row.split(' | ');
      return [first!.slice(2).trim(), numbersIn(rest.join(' | '))];
    }),
  );
}

describe('the limits the docs state', () => {
  it('reads numbers as a reader does', () => {
    assert.deepEqual(
      numbersIn('8,192, then `408`; 1.25 a second on Valkey 9.1, IPv6 /64 (min(24, x − 1))'),
      [8192, 1.25, 64, 24, 1],
    );
  });

  it("every row of docs/api.md's Limits table states the settings' numbers", () => {
    const table = limitsTable(read('docs/api.md'));
    assert.deepEqual(Object.fromEntries(table), ROWS);
  });

  it('a wrong number in the table fails the check', () => {
    const api = read('docs/api.md').replace(
      '| 15 s: its connections are cut',
      '| 16 s: its connections are cut',
    );
    assert.notDeepEqual(limitsTable(api).get("a run's deadline"), ROWS["a run's deadline"]);
  });

  /** Each sentence of a document that restates a setting: its pattern, and the number(s) it must hold. */
  const SENTENCES: Array<[path: string, pattern: RegExp, numbers: number[]]> = [
    ['docs/api.md', /with `COUNT` ≤ (\d+),/, [CONSOLE_CAPS.scanCount]],
    ['docs/api.md', /<identity ≤ (\d+) bytes> NX/, [CONSOLE_CAPS.identityBytes]],
    ['docs/api.md', /\(≤ (\d+) pairs\) and `DEL` \(≤ (\d+) keys\)/, [CONSOLE_CAPS.pairs, CONSOLE_CAPS.keys]],
    [
      'docs/api.md',
      /More than (\d+) lines, a line over (\d+) bytes/,
      [CONSOLE_LIMITS.lines, CONSOLE_LIMITS.lineBytes],
    ],
    ['docs/api.md', /name a key in \(at most (\d+); more is `BAD_INPUT`/, [CONSOLE_CAPS.clusterSlots]],
    ['README.md', /at start and every (\d+) s/, [s(CLUSTER_CHECK_EVERY_MS)]],
    ['README.md', /but\s+database 0, at most (\d+);/, [MAX_KEYSPACES]],
    ['README.md', /ends the start within (\d+) s/, [s(START_BUDGET_MS)]],
    ['docs/deploy.md', /keyspaces, at most (\d+), and says/, [MAX_KEYSPACES]],
    ['docs/deploy.md', /than keyspaces need `databases (\d+)`/, [MAX_KEYSPACES + 1]],
    ['docs/deploy.md', /then per second \((\d+), (\d+)\)/, [DEFAULTS.EXPLORER_BURST, DEFAULTS.EXPLORER_RATE]],
    [
      'docs/deploy.md',
      /connection caps of each process \(([\d,]+), (\d+)\)/,
      [DEFAULTS.MAX_CONNECTIONS, DEFAULTS.MAX_CONNECTIONS_PER_ADDRESS],
    ],
    [
      'docs/deploy.md',
      /the front's timeouts \((\d+) s, (\d+) s, (\d+) s\)/,
      [s(DEFAULTS.HEADERS_TIMEOUT_MS), s(DEFAULTS.REQUEST_TIMEOUT_MS), s(DEFAULTS.KEEP_ALIVE_TIMEOUT_MS)],
    ],
    [
      'docs/deploy.md',
      /a run is cut after (\d+) s; a lease of a process that died expires (\d+) s/,
      [s(DEFAULTS.RUN_DEADLINE_MS), s(DEFAULTS.LEASE_GRACE_MS)],
    ],
    ['docs/deploy.md', /keyspaces, at most (\d+), and says/, [MAX_KEYSPACES]],
    ['docs/deploy.md', /A run waits up to (\d+) s for a keyspace/, [s(KEYSPACE_WAIT_MS)]],
    ['docs/deploy.md', /need `databases (\d+)`/, [MAX_KEYSPACES + 1]],
    [
      'docs/deploy.md',
      /uses (\d+) MB for the standalone, (\d+) MB per cluster node/,
      [mb(MAXMEMORY.standalone), mb(MAXMEMORY.clusterNode)],
    ],
    ['docs/deploy.md', /keeps for runs \((\d+)\)/, [CLUSTER_CLIENTS]],
    ['docs/deploy.md', /databases − 1, at most (\d+)\)/, [MAX_KEYSPACES]],
    [
      'docs/deploy.md',
      /before the site's (\d+) s \(`KEEP_ALIVE_TIMEOUT_MS`\)/,
      [s(DEFAULTS.KEEP_ALIVE_TIMEOUT_MS)],
    ],
    ['docs/sandbox.md', /No persistence, (\d+) MB each/, [mb(MAXMEMORY.clusterNode)]],
    [
      'docs/nginx-site.conf',
      /\(MAX_CONNECTIONS_PER_ADDRESS, (\d+)\)/,
      [DEFAULTS.MAX_CONNECTIONS_PER_ADDRESS],
    ],
    ['docs/nginx-site.conf', /limit_conn per_reader (\d+);/, [DEFAULTS.MAX_CONNECTIONS_PER_ADDRESS]],
    ['docs/nginx-site.conf', /\(KEEP_ALIVE_TIMEOUT_MS, (\d+) s\)/, [s(DEFAULTS.KEEP_ALIVE_TIMEOUT_MS)]],
    [
      'docs/nginx-site.conf',
      /client_header_timeout (\d+)s; client_body_timeout (\d+)s; keepalive_timeout (\d+)s;/,
      [s(DEFAULTS.HEADERS_TIMEOUT_MS), s(DEFAULTS.REQUEST_TIMEOUT_MS), s(DEFAULTS.KEEP_ALIVE_TIMEOUT_MS)],
    ],
    ['docs/nginx-site.conf', /the console's ([\d,]+) bytes/, [CONSOLE_LIMITS.bodyBytes]],
    ['docs/sandbox.md', /at start and every (\d+) s/, [s(CLUSTER_CHECK_EVERY_MS)]],
  ];

  for (const [path, pattern, numbers] of SENTENCES) {
    it(`${path}: ${pattern.source}`, () => {
      const match = pattern.exec(read(path).replace(/\s+/g, ' '));
      assert.ok(match, `${path} no longer says ${pattern}: reword this check with it`);
      assert.deepEqual(
        match.slice(1).map((n) => Number(n.replaceAll(',', ''))),
        numbers,
      );
    });
  }

  it("nginx's template closes before the site, takes every body the site takes, and outwaits a run", () => {
    const conf = read('docs/nginx-site.conf');
    const seconds = (pattern: RegExp) => Number(pattern.exec(conf)![1]);
    const upstreamIdle = seconds(/upstream owned_keyspace \{[\s\S]*?keepalive_timeout (\d+)s;/);
    assert.ok(upstreamIdle * 1000 < DEFAULTS.KEEP_ALIVE_TIMEOUT_MS, `${upstreamIdle} s`);
    assert.ok(seconds(/client_max_body_size (\d+)k;/) * 1024 >= CONSOLE_LIMITS.bodyBytes);
    const runAnswered = DEFAULTS.RUN_DEADLINE_MS + RUN_ANSWER_MARGIN_MS;
    assert.ok(seconds(/proxy_read_timeout (\d+)s;/) * 1000 > runAnswered);
  });
});
