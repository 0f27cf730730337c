// Numbers in the console read exactly as the server reads them. Valkey reads numkeys with its strict
// string2ll (so does the native module), but its key finder for EVAL/EVALSHA reads it with atoi: `+2`,
// `02`, ` 2`, `2 ` and `2.0` are no number to EVAL, yet 2 keys to the ACL check and the cluster's
// routing — checked first on a real server here. So each such spelling is refused by the console, with
// a clear error, before any server (it was read as "no keys": `SCRIPT enqueue +2 {sandbox}:lock:migration x`
// passed the key check, and on the cluster an EMQ.* line so spelled took no slot turn); and a numkeys the
// server does read is counted exactly as the server counts it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Valkey } from 'iovalkey';
import { ERROR_CODES } from '../../server/contract/catalogue/error-codes.ts';
import { textPattern } from '../support/catalogue-rows.ts';
import { useApi } from '../support/api.ts';

const api = useApi();
const run = (node: 'standalone' | 'cluster', lines: string[]) => api.post('console', { node, lines });

/** Spellings of 2 (and of 0) that are no number to the server. */
const NOT_NUMBERS = ['+2', '02', ' 2', '2 ', '2.0', '0x2', '-0', '00', '２'];
const JOB = 'JOB0Nb1VTbfnu4';

/** What the real server makes of a numkeys: EVAL's own reading, and the keys its key finder sees. */
async function serverReads(numkeys: string): Promise<{ evalReply: string; keys: string[] }> {
  const admin = new Valkey(api.sandbox.standalone.url);
  try {
    const evalReply = await admin
      .call('EVAL', 'return #KEYS', numkeys, 'emq:{orders}:pending', 'emq:{orders}:active')
      .then(String, (error: Error) => error.message);
    const keys = (await admin
      .call('COMMAND', 'GETKEYS', 'EVAL', 'return 1', numkeys, 'emq:{orders}:pending', 'emq:{orders}:active')
      .catch(() => [])) as string[];
    return { evalReply, keys };
  } finally {
    admin.disconnect();
  }
}

/** A quoted console argument: the spellings with a blank in them are one argument each. */
const arg = (numkeys: string) => `"${numkeys}"`;

/** The server's own readings: EVAL refuses each spelling, though its key finder reads 2 keys in some. */
async function assertServerReadings(): Promise<void> {
  for (const numkeys of NOT_NUMBERS) {
    const { evalReply } = await serverReads(numkeys);
    assert.match(evalReply, /value is not an integer/, `EVAL with numkeys ${JSON.stringify(numkeys)}`);
  }
  for (const numkeys of ['+2', '02', ' 2', '2 ', '2.0'])
    assert.deepEqual((await serverReads(numkeys)).keys, ['emq:{orders}:pending', 'emq:{orders}:active']);
}

/** Each spelling that is no number, in three lines that take numkeys: refused, saying why, unsent. */
async function assertRefused(node: 'standalone' | 'cluster'): Promise<void> {
  let first = '';
  for (const numkeys of NOT_NUMBERS) {
    const { status, body } = await run(node, [
      `SCRIPT enqueue ${arg(numkeys)} {sandbox}:lock:migration x`,
      `EMQ.ENQUEUE ${arg(numkeys)} emq:{orders}:job:${JOB} emq:{orders}:pending ${JOB} hi`,
      `SCRIPT claim ${arg(numkeys)} emq:{orders}:pending emq:{orders}:active emq:{orders}:job: 1000`,
    ]);
    assert.equal(status, 200);
    for (const line of body.result.lines) {
      assert.equal(line.outcome, 'refused', `${line.input}: ${line.error?.message}`);
      assert.equal(line.error.code, 'BAD_ARGUMENTS', line.input);
      assert.ok(
        line.error.message.includes(`numkeys is ${JSON.stringify(numkeys)}`),
        `${line.input}: ${line.error.message}`,
      );
      assert.match(line.error.message, /plain decimal digits/);
      assert.equal(line.proof.reached, 0, `${line.input} reached a server`);
      const rows = ERROR_CODES.filter(
        (row) => row.code === 'BAD_ARGUMENTS' && textPattern(row.text).test(line.error.message),
      );
      assert.equal(rows.length, 1, 'a row of the published catalogue');
    }
    first ||= body.result.lines[0].error.message;
  }
  assert.match(first, /\(write 2\)$/, 'and it says how to write it');
}

describe('numkeys in the console, as the server reads it', () => {
  it('on "standalone": each spelling that is no number refused before any server; each number counted as the server counts it', async () => {
    await assertServerReadings();
    await assertRefused('standalone');
    // A numkeys the server reads declares exactly the keys its key finder reads, checked by the list.
    for (const numkeys of ['0', '1', '2', '3', '-1']) {
      const { body } = await run('standalone', [
        `SCRIPT enqueue ${numkeys} emq:{orders}:pending emq:{orders}:active`,
      ]);
      const [line] = body.result.lines;
      assert.notEqual(line.outcome, 'refused', `${numkeys}: ${line.error?.message}`);
      assert.deepEqual(
        line.keys.map((k: { key: string }) => k.key),
        (await serverReads(numkeys)).keys,
        `numkeys ${numkeys}: the keys the console names, as the server's key finder reads them`,
      );
    }
    const { body } = await run('standalone', ['SCRIPT enqueue 2 {sandbox}:lock:migration x']);
    assert.equal(body.result.lines[0].error.code, 'KEY_NOT_ALLOWED');
  });

  it('on "cluster": an EMQ.* line so spelled is refused, never run without its slot’s turn', async () => {
    await assertRefused('cluster');
    // Spelled as a number, the same line names its keys (so it takes its queue's slot's turn) and is
    // sent: the module answers on a cluster that it serves standalone servers only.
    const { body } = await run('cluster', [
      `EMQ.ENQUEUE 2 emq:{orders}:job:${JOB} emq:{orders}:pending ${JOB} hi`,
    ]);
    const [line] = body.result.lines;
    assert.deepEqual(
      line.keys.map((k: { slot: number }) => k.slot),
      [105, 105],
    );
    assert.equal(line.error?.code, 'EMQWIRE', JSON.stringify(line.error));
    assert.ok(line.proof.reached > 0, 'sent');
  });
});
