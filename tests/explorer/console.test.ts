// The console against real servers, through the JSON API's handler: a refused command reaches no
// server (the connection's own count and the servers' commandstats both say so), the limits hold at
// the limit and one past, and a run shows what the servers did, byte for byte.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { ERROR_CODES } from '../../server/contract/catalogue/error-codes.ts';
import { textPattern } from '../support/catalogue-rows.ts';
import { MAX_KEYSPACES } from '../../server/settings/bounds.ts';
import { CONSOLE_LIMITS } from '../../server/contract/limits.ts';
import { slot } from '../../server/contract/keyspace/index.ts';
import { useApi } from '../support/api.ts';

const api = useApi();
const run = (body: unknown) => api.post('console', body);
/** Runs the lines in one console run, each refused with the message beside it; answers the lines' results. */
async function assertRefusals(messages: Record<string, string>) {
  const { body } = await run({ lines: Object.keys(messages) });
  const lines: Array<{ error: { message: string } }> = body.result.lines;
  assert.deepEqual(
    lines.map((line) => line.error.message),
    Object.values(messages),
  );
  return lines;
}

/** Runs the lines in one console run; answers each line's result. */
async function resultsOf(lines: string[]) {
  const { status, body } = await run({ lines });
  assert.equal(status, 200, JSON.stringify(body));
  return body.result.lines;
}

/** Every server: the standalone node and each node of the cluster, as the admin. */
const nodes = () => [api.sandbox.standalone.url, ...api.sandbox.cluster!.url.split(',')];

/** Every command the servers have run, by name, read as the admin from INFO commandstats. */
async function commandStats(): Promise<Map<string, number>> {
  const stats = new Map<string, number>();
  for (const url of nodes()) {
    const admin = new Valkey(url);
    const info = String(await admin.info('commandstats'));
    admin.disconnect();
    for (const [, name, calls] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
      stats.set(`${url} ${name}`, (stats.get(`${url} ${name}`) ?? 0) + Number(calls));
  }
  return stats;
}

const REFUSED = [
  ['EVAL "return 1" 0', 'eval'],
  ['SCRIPT LOAD "return 1"', 'script|load'],
  ['FUNCTION LIST', 'function|list'],
  ['SELECT 0', 'select'],
  ['FLUSHDB', 'flushdb'],
  ['FLUSHALL', 'flushall'],
  ['CONFIG GET maxmemory', 'config|get'],
  ['ACL WHOAMI', 'acl|whoami'],
  ['CLIENT LIST', 'client|list'],
  ['DEBUG SLEEP 0', 'debug'],
  ['MODULE LIST', 'module|list'],
  ['KEYS *', 'keys'],
  ['MIGRATE 127.0.0.1 1 emq:{a}:pending 0 1000', 'migrate'],
  ['SHUTDOWN NOSAVE', 'shutdown'],
  ['MULTI', 'multi'],
  ['WAIT 1 0', 'wait'],
  ['SUBSCRIBE news', 'subscribe'],
  ['BLPOP emq:{a}:ring 0', 'blpop'],
  ['BZPOPMIN emq:{a}:pending 0', 'bzpopmin'],
  ['NOPE now', 'nope'],
] as const;

describe('the console refuses', () => {
  it('every command outside the allow-list by name, saying what is allowed, and none reaches a server', async () => {
    // Every pooled connection is up (its handshake SELECTs its database) before the counts are read.
    await Promise.all(Array.from({ length: MAX_KEYSPACES }, () => run({ lines: ['PING'] })));
    const before = await commandStats();
    const lines: any[] = [];
    let runs = 0;
    for (let i = 0; i < REFUSED.length; i += 10, runs += 1) {
      const { status, body } = await run({ lines: REFUSED.slice(i, i + 10).map(([line]) => line) });
      assert.equal(status, 200);
      lines.push(...body.result.lines);
    }
    const afterwards = await commandStats();
    for (const [i, [typed, stat]] of REFUSED.entries()) {
      const line = lines[i];
      const name = typed.split(' ')[0]!;
      assert.equal(line.outcome, 'refused', typed);
      assert.equal(line.error.code, 'NOT_ALLOWED', typed);
      assert.match(
        line.error.message,
        new RegExp(
          `^${name}\\b.* is not allowed in the console \\(.*\\)\\. Allowed: EMQ\\.\\* \\(the 7 verbs\\), SCRIPT <verb>, GET, `,
        ),
        typed,
      );
      assert.deepEqual(line.wire, [], typed);
      assert.deepEqual(line.proof, { reached: 0, listed: 0, bytesReceived: 0, bytesListed: 0 }, typed);
      for (const url of nodes()) {
        // The pool's lease scripts flush each run's keyspace before and after it, selecting it (and
        // database 0 again after the flush): those FLUSHDBs and SELECTs are the only ones.
        const pool = { flushdb: 2, select: 3 } as Record<string, number>;
        const own = url === api.sandbox.standalone.url ? (pool[stat] ?? 0) * runs : 0;
        const was = before.get(`${url} ${stat}`) ?? 0;
        assert.equal(afterwards.get(`${url} ${stat}`) ?? 0, was + own, `${typed} ran on ${url}`);
      }
    }
  });

  it('writes outside the grammar, before any server', async () => {
    const { body } = await run({
      lines: ['HSET foo a b', 'DEL {emq}:version', 'SET {emq}:version x', 'GET foo'],
    });
    for (const line of body.result.lines) {
      assert.equal(line.outcome, 'refused', line.input);
      assert.equal(line.proof.reached, 0, line.input);
    }
    assert.deepEqual(
      body.result.lines.map((line: { error: { code: string } }) => line.error.code),
      ['KEY_NOT_ALLOWED', 'KEY_NOT_ALLOWED', 'BAD_ARGUMENTS', 'KEY_NOT_ALLOWED'],
    );
    // Each refusal is a row of the published error catalogue, word for word.
    for (const { error } of body.result.lines) {
      const rows = ERROR_CODES.filter(
        (row) => row.code === error.code && textPattern(row.text).test(error.message),
      );
      assert.equal(rows.length, 1, error.message);
    }
  });
});

describe('the console limits', () => {
  const { lines: LINES, lineBytes: LINE_BYTES } = CONSOLE_LIMITS;

  it(`takes ${LINES} lines and refuses ${LINES + 1}`, async () => {
    const ok = await run({ lines: Array(LINES).fill('PING') });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.result.lines.length, LINES);
    const over = await run({ lines: Array(LINES + 1).fill('PING') });
    assert.equal(over.status, 400);
    assert.equal(over.body.field, 'lines');
    assert.match(over.body.detail, new RegExp(`${LINES + 1} lines; at most ${LINES}`));
  });

  it(`takes a line of ${LINE_BYTES} bytes and refuses ${LINE_BYTES + 1}`, async () => {
    const line = (bytes: number) => `ECHO ${'é'.repeat((bytes - 5) >> 1)}${'x'.repeat((bytes - 5) & 1)}`;
    assert.equal(new TextEncoder().encode(line(LINE_BYTES)).length, LINE_BYTES);
    const ok = await run({ lines: [line(LINE_BYTES), line(LINE_BYTES)] });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.result.lines[0].reply, line(LINE_BYTES).slice(5));
    const over = await run({ lines: ['PING', line(LINE_BYTES + 1)] });
    assert.equal(over.status, 400);
    assert.equal(over.body.field, 'lines[1]');
    assert.match(over.body.detail, new RegExp(`${LINE_BYTES + 1} bytes long; at most ${LINE_BYTES}`));
  });

  it('refuses a line with broken quoting by itself, and runs the others', async () => {
    const { status, body } = await run({ lines: ['PING', 'GET "emq:{a}:pending', "ECHO 'it''s", 'ECHO ok'] });
    assert.equal(status, 200);
    const [ping, open, glued, echo] = body.result.lines;
    assert.equal(ping.reply, 'PONG');
    assert.equal(echo.reply, 'ok');
    for (const line of [open, glued]) {
      assert.equal(line.outcome, 'refused', line.input);
      assert.equal(line.error.code, 'BAD_QUOTING', line.input);
      assert.equal(line.proof.reached, 0, line.input);
    }
    assert.match(
      open.error.message,
      /^GET: unbalanced " quote opened at character 5, so the line was not split/,
    );
    assert.match(glued.error.message, /^ECHO: a closing ' at character 9 must be followed by a space/);
    assert.match(open.error.message, /the other lines run$/);
  });
});

describe('a refusal names the rule that refused it', () => {
  it('SET anything but the identity: what the key holds and the commands that do write and read it', async () => {
    await assertRefusals({
      'SET emq:{mira}:meta hello':
        'SET: emq:{mira}:meta is a hash: write it with HSET emq:{mira}:meta <field> <value>, read it with HGETALL emq:{mira}:meta',
      'SET emq:{mira}:ring x':
        'SET: emq:{mira}:ring is a list, which the console only reads: LRANGE emq:{mira}:ring 0 -1',
      'SET emq:{mira}:bogus x':
        'SET: "emq:{mira}:bogus" is not a key of the grammar, and the console\'s one SET is SET {emq}:version <value> NX; a queue\'s settings are the hash emq:{<queue>}:meta, written with HSET',
      'SET foo bar':
        "SET: \"foo\" is outside the console's keys, which start with emq: or {emq}:, and the console's one SET is SET {emq}:version <value> NX; a queue's settings are the hash emq:{orders}:meta, written with HSET",
      'SET {emq}:version x':
        'SET: NX is missing: the console sets {emq}:version only while it is absent, as in SET {emq}:version x NX',
      'SET {emq}:version x NX EX':
        'SET: the console runs it only as SET {emq}:version <value> NX [GET]; "EX" is neither NX nor GET',
    });
    // the form each refusal names is one the console runs
    const named = await run({ lines: ['HSET emq:{mira}:meta paused 1', 'HGETALL emq:{mira}:meta'] });
    assert.deepEqual(
      named.body.result.lines.map((line: { outcome: string }) => line.outcome),
      ['reply', 'reply'],
    );
    // the identity itself is still set, once
    const ok = await run({ lines: ['SET {emq}:version echomq:6.0.0 NX'] });
    assert.notEqual(ok.body.result.lines[0].outcome, 'refused');
  });

  it('a key outside the namespace: one plain sentence with the namespace and a key it takes', async () => {
    const lines = await assertRefusals({
      'GET foo':
        'GET: "foo" is not a key the console reads: it reads only keys that start with emq: or {emq}:, such as {emq}:version',
      'HGETALL settings':
        'HGETALL: "settings" is not a key the console reads: it reads only keys that start with emq: or {emq}:, such as emq:{orders}:meta',
      'LRANGE orders 0 -1':
        'LRANGE: "orders" is not a key the console reads: it reads only keys that start with emq: or {emq}:, such as emq:{orders}:ring',
      'HSET foo a b':
        'HSET: "foo" is not a key the console writes: it writes only keys of the grammar, emq:{<queue>}:<type> or a job row emq:{<queue>}:job:<branded id>, such as emq:{orders}:meta',
      'DEL {emq}:version':
        'DEL: "{emq}:version" is not a key the console writes: it writes only keys of the grammar, emq:{<queue>}:<type> or a job row emq:{<queue>}:job:<branded id>, such as emq:{orders}:pending',
    });
    for (const { error } of lines) {
      assert.doesNotMatch(error.message, /account|namespace\)|outside what/, error.message);
      assert.equal(error.message.split(/[.;] /).length, 1, `one sentence: ${error.message}`);
    }
  });

  it('a command the console does not run names the one that does its job; a write on the cluster says where it runs', async () => {
    const { body } = await run({
      lines: ['HMSET emq:{a}:meta a b', 'ZCARD emq:{a}:pending', 'UNLINK emq:{a}:pending'],
    });
    assert.deepEqual(
      body.result.lines.map(
        (line: { error: { message: string } }) => /\((.*)\)\. Allowed/.exec(line.error.message)?.[1],
      ),
      [
        'not a command the console runs; use HSET, which takes several field value pairs',
        'not a command the console runs; use ZRANGE key 0 -1',
        'not a command the console runs; use DEL',
      ],
    );
    const cluster = await run({ lines: ['HSET emq:{orders}:meta paused 1'], node: 'cluster' });
    assert.match(cluster.body.result.lines[0].error.message, /run it on a fresh standalone keyspace instead/);
  });

  it('replies that need it carry a one-line reading: (nil) after SET … NX wrote nothing', async () => {
    const [nx, missing, empty, hset, wrongType, exists, keyslot, ping] = await resultsOf([
      'SET {emq}:version echomq:4.0.0 NX',
      'GET emq:{orders}:meta',
      'HGETALL emq:{orders}:meta',
      'HSET emq:{orders}:meta paused 1 paused 0',
      'GET emq:{orders}:meta',
      'EXISTS emq:{orders}:meta emq:{orders}:pending',
      'CLUSTER KEYSLOT emq:{orders}:pending',
      'PING',
    ]);
    // the native identity is installed before the lines run, so NX finds it
    assert.equal(nx.reply, null);
    assert.equal(
      nx.reading,
      '{emq}:version already held a value, so NX wrote nothing; GET {emq}:version shows it',
    );
    assert.equal(missing.reply, null);
    assert.equal(missing.reading, 'there is no such key here');
    assert.deepEqual(empty.reply, []);
    assert.equal(empty.reading, 'there is no such key here (Valkey removes a hash once it is empty)');
    assert.equal(hset.reply, 1);
    assert.equal(hset.reading, '1 new field; a field already there is overwritten and not counted');
    assert.equal(wrongType.error.code, 'WRONGTYPE');
    assert.equal(wrongType.reading, 'emq:{orders}:meta is a hash: read it with HGETALL emq:{orders}:meta');
    assert.equal(exists.reading, '1 of the 2 keys named exist (a key named twice counts twice)');
    assert.equal(keyslot.reply, 105);
    assert.equal(keyslot.reading, 'CRC16 of the hashed bytes "orders", modulo 16384');
    assert.equal(ping.reading, undefined);
  });

  it('a wrong count quotes the form; a typo is told the name it is near; the allow-list is short', async () => {
    const lines = await resultsOf([
      'GET emq:{a}:pending emq:{a}:active',
      'GTE emq:{a}:pending',
      'PONG',
      'NOPE',
      'SCRIPT clam 1 emq:{a}:pending',
    ]);
    const [count, typo, pong, nope, script] = lines;
    assert.equal(
      count.error.message,
      'GET: the console runs it only as GET key; that is 1 argument after the name, found 2',
    );
    assert.match(
      typo.error.message,
      /^GTE is not allowed in the console \(not a command the console knows; did you mean GET\?\)/,
    );
    assert.match(pong.error.message, /did you mean PING\?/);
    assert.doesNotMatch(nope.error.message, /did you mean/);
    assert.match(script.error.message, /did you mean SCRIPT CLAIM\?/);
    for (const line of lines)
      assert.ok(line.error.message.length < 400, `${line.input}: ${line.error.message.length} characters`);
  });
});

describe('a console run', () => {
  it('shows each reply or error, the slot of every key, the wire byte for byte, and the keyspace after', async () => {
    const { status, body } = await run({
      lines: [
        'EMQ.ENQUEUE 2 emq:{orders}:job:JOB0Nb1VTbfnu4 emq:{orders}:pending JOB0Nb1VTbfnu4 hello',
        'SCRIPT claim 3 emq:{orders}:pending emq:{orders}:active emq:{orders}:job: 30000',
        'EMQ.CLAIM 3 emq:{orders}:pending emq:{orderz}:active emq:{orders}:job: 1000',
        'CLUSTER KEYSLOT emq:{orders}:pending',
        'HGET emq:{orders}:job:JOB0Nb1VTbfnu4 attempts',
      ],
    });
    assert.equal(status, 200);
    const [enqueue, claim, edited, keyslot, attempts] = body.result.lines;
    assert.equal(enqueue.reply, 1);
    assert.deepEqual(claim.reply, ['JOB0Nb1VTbfnu4', 'hello', 1]);
    assert.match(claim.wire.at(-1).line, /^EVALSHA [0-9a-f]{40} 3 emq:\{orders\}:pending /);
    assert.equal(edited.error.code, 'EMQKEY');
    assert.match(edited.error.learn.href, /braced-grammar\/#the-server-rebuilds-every-key$/);
    assert.deepEqual(
      edited.keys.map((k: { slot: number }) => k.slot),
      [105, slot('emq:{orderz}:active'), 105],
    );
    assert.equal(keyslot.node, 'cluster');
    assert.equal(keyslot.reply, 105);
    assert.equal(attempts.reply, '1');
    for (const line of body.result.lines) {
      assert.equal(
        line.proof.bytesReceived,
        line.proof.bytesListed,
        `${line.input}: the bytes the server received`,
      );
      assert.equal(line.proof.listed, line.wire.length);
      // The server also counts what a script calls inside it; everything else is one for one.
      if (!line.command.startsWith('SCRIPT')) assert.equal(line.proof.reached, line.proof.listed, line.input);
      else assert.ok(line.proof.reached > line.proof.listed);
    }
    assert.deepEqual(body.result.keyspace.map((entry: { key: string }) => entry.key).sort(), [
      'emq:{orders}:active',
      'emq:{orders}:job:JOB0Nb1VTbfnu4',
      '{emq}:version',
    ]);
  });
});

describe('the console on the cluster', () => {
  it('runs what writes nothing through a cluster client, naming the node that answered', async () => {
    const { status, body } = await run({
      node: 'cluster',
      lines: [
        'CLUSTER KEYSLOT emq:{orders}:pending',
        'EMQ.ENQUEUE 2 emq:{orders}:job:JOB0Nb1VTbfnu4 emq:{orders}:pending JOB0Nb1VTbfnu4 hi',
        'EMQ.CLAIM 3 emq:{orders}:pending emq:{fills}:active emq:{orders}:job: 1000',
        'HSET emq:{orders}:meta paused 1',
      ],
    });
    assert.equal(status, 200);
    const [keyslot, enqueue, mixed, write] = body.result.lines;
    assert.equal(keyslot.reply, 105);
    // The owner of slot 105 answers the EMQ.* call, and refuses it: the module serves standalone only.
    const admin = new Valkey(nodes()[1]!);
    const shards = JSON.stringify(await admin.call('CLUSTER', 'SHARDS'));
    admin.disconnect();
    assert.equal(enqueue.error.message, 'EMQWIRE expected a standalone server but cluster mode is enabled');
    assert.match(enqueue.answeredBy, /^[\d.]+:\d+$/);
    assert.ok(shards.includes(String(enqueue.answeredBy.split(':')[1])));
    assert.equal(mixed.error.code, 'CROSSSLOT');
    assert.match(mixed.error.learn.href, /hashtag-and-slot/);
    assert.equal(write.outcome, 'refused');
    assert.deepEqual(write.proof, { reached: 0, listed: 0, bytesReceived: 0, bytesListed: 0 });
    assert.equal(body.result.keyspace, null);
    for (const line of body.result.lines)
      assert.equal(line.proof.bytesReceived, line.proof.bytesListed, line.input);
  });
});
