// The wire 4 connector's fence, all three branches, on a real server.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectWire4 } from '../../server/connectors/wire4.ts';
import { versionKey, WIRE4_IDENTITY, WIRE6_IDENTITY } from '../../server/contract/keyspace/index.ts';
import { useSandbox } from '../support/sandbox.ts';

const box = useSandbox({ cluster: false, native: false });

/** `blocked_clients` of an `INFO clients` reply: a client held by `CLIENT PAUSE … WRITE` counts there. */
function blockedClients(info: string): number {
  return Number(/blocked_clients:(\d+)/.exec(info)?.[1] ?? 0);
}

function urlForDb(db: number): string {
  return `${box.sandbox.standalone.url}/${db}`;
}

describe('the wire 4 fence', () => {
  it('claims an absent identity with SET NX, reads it back and goes on', async () => {
    const admin = box.standalone(4);
    await admin.flushdb();
    const connection = await connectWire4(urlForDb(4));
    assert.equal(connection.fence.outcome, 'claimed');
    assert.deepEqual(
      connection.fence.steps.map((step) => [step.command, step.reply]),
      [
        ['GET {emq}:version', null],
        [`SET {emq}:version ${WIRE4_IDENTITY} NX`, 'OK'],
        ['GET {emq}:version', WIRE4_IDENTITY],
      ],
    );
    assert.equal(await admin.get(versionKey()), WIRE4_IDENTITY);
    await connection.close();
  });

  it('goes on without writing when the identity is its own', async () => {
    const admin = box.standalone(5);
    await admin.set(versionKey(), WIRE4_IDENTITY);
    const connection = await connectWire4(urlForDb(5));
    assert.equal(connection.fence.outcome, 'verified');
    assert.equal(connection.fence.steps.length, 1);
    await connection.close();
  });

  it('refuses to start on another identity, naming found and expected, and changes nothing', async () => {
    const admin = box.standalone(6);
    await admin.set(versionKey(), WIRE6_IDENTITY);
    await assert.rejects(connectWire4(urlForDb(6)), {
      name: 'FenceError',
      message: `the wire 4 connector refuses this server: expected wire identity "${WIRE4_IDENTITY}" at {emq}:version but found "${WIRE6_IDENTITY}"`,
    });
    assert.equal(await admin.get(versionKey()), WIRE6_IDENTITY);
  });

  it('two connectors racing on an absent identity both end on the one claimed', async () => {
    const admin = box.standalone(7);
    await admin.flushdb();
    // The race, made certain: writes are paused, so both connectors read the identity absent and both
    // reach their SET NX before either is applied; then one SET wins and the other finds it on read-back.
    await admin.call('CLIENT', 'PAUSE', '30000', 'WRITE');
    try {
      const racing = Promise.all([connectWire4(urlForDb(7)), connectWire4(urlForDb(7))]);
      while (blockedClients(String(await admin.info('clients'))) < 2)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await admin.call('CLIENT', 'UNPAUSE');
      const connections = await racing;
      assert.deepEqual(
        connections.map((c) => c.fence.steps.map((step) => step.command)),
        [0, 1].map(() => [
          'GET {emq}:version',
          `SET {emq}:version ${WIRE4_IDENTITY} NX`,
          'GET {emq}:version',
        ]),
      );
      assert.deepEqual(connections.map((c) => c.fence.steps[1]!.reply).sort(), ['OK', null].sort());
      assert.deepEqual(
        connections.map((c) => c.fence.outcome),
        ['claimed', 'claimed'],
      );
      await Promise.all(connections.map((c) => c.close()));
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
    }
    assert.equal(await admin.get(versionKey()), WIRE4_IDENTITY);
  });
});
