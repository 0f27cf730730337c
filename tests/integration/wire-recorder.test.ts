// The wire recorder's proof on a real server: the bytes the server says it received during a recorded
// act equal the bytes of the commands listed. A wire starts from the connection's last CLIENT INFO
// reading plus what its tap saw written since, and asks afresh only when it cannot know (a script ran
// since, whose inner calls the server counts); a read sent with the closing reading is not in the act.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wireDuring } from '../../server/wire/recorder.ts';
import { useSandbox } from '../support/sandbox.ts';

const sandbox = useSandbox();

function assertExact(name: string, proof: { bytesReceived: number; bytesListed: number; listed: number }) {
  assert.ok(proof.listed > 0, `${name}: something was listed`);
  assert.equal(proof.bytesReceived, proof.bytesListed, `${name}: the bytes the server received`);
}

describe('the wire recorder', () => {
  it('proves each act exactly, asking CLIENT INFO only where it cannot know', async () => {
    const client = sandbox.standalone(6);
    const admin = sandbox.standalone(0);
    await client.flushdb();
    await admin.config('RESETSTAT');
    const clientInfos = async () =>
      Number(/cmdstat_client\|info:calls=(\d+)/.exec(String(await admin.info('commandstats')))?.[1] ?? 0);

    // A first wire: a fresh reading before, one after.
    const first = await wireDuring(client, async () => void (await client.set('a', '1')));
    assertExact('first', first.proof);
    assert.equal(first.proof.reached, 1);
    assert.equal(await clientInfos(), 2);

    // Plain commands outside any wire, one of them pipelined: the next wire starts from the last
    // reading plus them.
    await client.get('a');
    await client.pipeline().get('a').hset('h', 'f', 'v').exec();
    const second = await wireDuring(client, async () => void (await client.incr('n')));
    assertExact('second', second.proof);
    assert.equal(second.proof.reached, 1);
    assert.equal(await clientInfos(), 3);

    // A script outside any wire: its inner calls are the server's to count, so the next wire asks.
    await client.eval("return redis.call('GET', KEYS[1])", 1, 'a');
    const third = await wireDuring(client, async () => void (await client.del('h')));
    assertExact('third', third.proof);
    assert.equal(await clientInfos(), 5);

    // A read sent in the closing write answers, and is not part of the act; the next wire knows it.
    const fourth = await wireDuring(client, async () => void (await client.set('b', '2')), ['GET', 'b']);
    assertExact('fourth', fourth.proof);
    assert.equal(fourth.read, '2');
    assert.deepEqual(
      fourth.wire.map(({ line }) => line),
      ['set b 2'],
    );
    const fifth = await wireDuring(client, async () => void (await client.get('b')));
    assertExact('fifth', fifth.proof);
    assert.equal(await clientInfos(), 7);
  });
});
