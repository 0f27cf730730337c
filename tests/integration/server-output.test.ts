// What the sandbox keeps of a valkey-server's output: its latest lines only, however much the server
// writes (a Valkey 9.1 node logs every slot migration; the whole log kept made a site's primary grow by
// about 1 MB a minute in an hour of reshards), enough to say why a server would not start, and the last
// words of one that died, in the one line the operator is given when it is started again.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { Valkey } from 'iovalkey';
import { startValkeyNode, type ValkeyNode } from '../../server/sandbox/valkey-process.ts';
import { superviseValkeyNode, type SupervisedNode } from '../../server/sandbox/supervisor.ts';
import { SERVER_OUTPUT_KEPT_BYTES } from '../../server/settings/bounds.ts';
import { boundedTeardown } from '../support/teardown.ts';

const started: Array<ValkeyNode | SupervisedNode> = [];
after(() => boundedTeardown(() => Promise.all(started.map((node) => node.stop()))));

/** Waits until `check` holds, for at most `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test('a server that logs megabytes is kept to its latest lines, the newest whole', async () => {
  // DEBUG LOG writes its words into the server's log: 2,000 lines of about 1 KB.
  const node = await startValkeyNode({ settings: { 'enable-debug-command': 'yes' } });
  started.push(node);
  const client = new Valkey(node.url);
  try {
    const filler = 'x'.repeat(1000);
    const pipeline = client.pipeline();
    for (let i = 0; i < 2000; i += 1)
      pipeline.call('DEBUG', 'LOG', `line ${String(i).padStart(4, '0')} ${filler}`);
    await pipeline.exec();
    await until(() => node.output().includes('line 1999'), 10_000, 'the last line in the output');
    const kept = node.output();
    assert.ok(kept.length <= SERVER_OUTPUT_KEPT_BYTES, `${kept.length} characters kept`);
    assert.ok(
      kept.length > SERVER_OUTPUT_KEPT_BYTES - 1100,
      `${kept.length} characters kept: the tail is used`,
    );
    assert.doesNotMatch(kept, /line 0000 /, 'the oldest lines are gone');
    assert.match(kept, /DEBUG LOG: line 1999 x{1000}\s*$/, 'the newest line is whole, and last');
  } finally {
    client.disconnect();
  }
});

test('a server that would not start says why, in its own words', async () => {
  await assert.rejects(startValkeyNode({ settings: { 'maxmemory-policy': 'nonsense' } }), (error: Error) => {
    assert.match(error.message, /exited \(1\) on port \d+:/);
    assert.match(error.message, /maxmemory-policy/, 'the server names the setting it refused');
    return true;
  });
});

test('a supervised server that dies is started again, and one log line says so with its last words', async () => {
  const node = await superviseValkeyNode({ settings: { 'enable-debug-command': 'yes' } });
  started.push(node);
  const client = new Valkey(node.url, { lazyConnect: true });
  client.on('error', () => {});
  await client.connect();
  await client.call('DEBUG', 'LOG', 'last words before the kill');
  client.disconnect();
  await until(
    () => node.current()!.output().includes('last words before the kill'),
    5000,
    'the words logged',
  );

  // The failure log writes JSON lines on standard error: read what it writes meanwhile.
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(String(chunk));
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    const dead = node.current()!.process;
    dead.kill('SIGKILL');
    await once(dead, 'exit');
    await until(() => node.current() !== null, 15_000, 'the server started again');
  } finally {
    process.stderr.write = write;
  }
  const said = lines
    .flatMap((text) => text.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { kind: string; message: string; detail?: string })
    .filter((line) => line.kind === 'sandbox server ended');
  assert.equal(said.length, 1, JSON.stringify(said));
  assert.equal(said[0]!.message, `valkey-server on port ${node.port} ended (SIGKILL); starting it again`);
  assert.match(said[0]!.detail ?? '', /last words before the kill/);
  // Back on its port, answering.
  const back = new Valkey(node.url);
  try {
    assert.equal(await back.ping(), 'PONG');
  } finally {
    back.disconnect();
  }
});
