import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  crc16,
  describeId,
  formatId,
  hashtag,
  IdMinter,
  isBrandedId,
  jobKey,
  KEY_TYPES,
  KeyspaceError,
  laneKey,
  layoutValueType,
  namespacePattern,
  parseId,
  queueKey,
  queueKeys,
  queuePattern,
  queuePrefix,
  queueSlot,
  quoteBytes,
  reserve,
  reservePattern,
  rowBase,
  slot,
  utf8,
  validQueue,
  versionKey,
  WIRE4_IDENTITY,
  WIRE6_IDENTITY,
  type KeyType,
} from '../../server/contract/keyspace/index.ts';

const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/keyspace-vectors.json', import.meta.url), 'utf8'),
);

describe('the braced grammar', () => {
  it('builds every per-queue key as emq:{q}:<type>', () => {
    for (const { queue, type, key } of vectors.queueKeys) assert.equal(queueKey(queue, type), key);
    for (const { queue, id, key } of vectors.jobKeys) assert.equal(jobKey(queue, id), key);
    assert.equal(rowBase('orders'), 'emq:{orders}:job:');
  });

  it('owns the queue’s prefix, slot and scan pattern, and the namespace’s and the reserve’s patterns', () => {
    assert.equal(queuePrefix('orders'), 'emq:{orders}:');
    for (const { key } of queueKeys('orders')) assert.ok(key.startsWith(queuePrefix('orders')), key);
    assert.equal(queueSlot('orders'), 105);
    assert.equal(queueSlot('123456789'), 12739);
    // An empty name is no hashtag: the queue's slot is its pending set's, hashed whole.
    assert.equal(queueSlot(''), slot('emq:{}:pending'));
    assert.equal(queuePattern('orders'), 'emq:{orders}:*');
    // A glob's special bytes in a name are taken literally (held on a real server by
    // tests/integration/keyspace-dump.test.ts).
    assert.equal(queuePattern('a*b?[c]\\d'), 'emq:{a\\*b\\?\\[c\\]\\\\d}:*');
    assert.equal(namespacePattern(), 'emq:*');
    assert.equal(reservePattern(), '{emq}:*');
  });

  it('gives each fixed key type its Valkey value type', () => {
    const values = new Set(Object.values(KEY_TYPES).map(({ value }) => value));
    assert.deepEqual([...values].sort(), ['hash', 'list', 'set', 'zset']);
    assert.equal(KEY_TYPES.pending.value, 'zset');
    assert.equal(KEY_TYPES.ring.value, 'list');
  });

  it('keeps the type registry closed', () => {
    assert.throws(() => queueKey('orders', 'pendng' as KeyType), { code: 'BAD_TYPE' });
    assert.throws(() => queueKey('orders', 'g:nope:pending' as KeyType), { code: 'BAD_TYPE' });
    assert.equal(laneKey('orders', 'GRP0Nb1VTbfnu4'), 'emq:{orders}:g:GRP0Nb1VTbfnu4:pending');
    assert.ok(Object.keys(KEY_TYPES).includes('metrics:completed'));
  });

  it('refuses a row whose id is not a branded id, before any wire', () => {
    for (const id of vectors.brandedIds.invalid) {
      assert.throws(
        () => jobKey('orders', id),
        (error: unknown) => {
          assert.ok(error instanceof KeyspaceError);
          assert.equal(error.code, 'BAD_ID');
          assert.match(error.message, /invalid job id/);
          return true;
        },
      );
    }
  });

  it('allows a queue named emq: its keys still start with e, never with {', () => {
    assert.equal(queueKey('emq', 'pending'), 'emq:{emq}:pending');
    assert.notEqual(queueKey('emq', 'pending')[0], versionKey()[0]);
  });
});

describe('the admission check', () => {
  it('accepts any bytes of UTF-8 but braces and NUL', () => {
    for (const queue of vectors.queueNames.valid) assert.doesNotThrow(() => validQueue(queue));
  });

  it('names the offending byte and its offset', () => {
    for (const { queue, reason, offset } of vectors.queueNames.invalid) {
      assert.throws(
        () => validQueue(queue),
        (error: unknown) => {
          assert.ok(error instanceof KeyspaceError);
          assert.equal(error.code, { empty: 'EMPTY_QUEUE', brace: 'BRACE', nul: 'NUL' }[reason as string]);
          if (offset !== undefined) assert.match(error.message, new RegExp(`byte ${offset} is`));
          assert.match(error.message, /any byte but '\{', '\}' and NUL/);
          return true;
        },
      );
    }
  });

  it('counts offsets in bytes, not characters', () => {
    assert.throws(() => validQueue('çà{'), { message: /byte 4 is '\{' \(0x7b\)/ });
    assert.throws(() => validQueue('a\uD800'), { code: 'NOT_UTF8' });
  });
});

describe('the hashtag and the slot', () => {
  it('matches every vector checked against a real cluster node', () => {
    for (const { key, hashtag: tag, slot: expected } of vectors.slots) {
      assert.equal(hashtag(key), tag, key);
      assert.equal(slot(key), expected, key);
    }
    assert.equal(crc16(utf8('123456789')), 0x31c3);
  });

  it('puts every key of one queue on one slot', () => {
    const types: KeyType[] = ['pending', 'active', 'schedule', 'dead', 'meta', 'metrics:failed'];
    const slots = new Set([
      ...types.map((type) => slot(queueKey('orders', type))),
      slot(jobKey('orders', 'JOB0Nb1VTbfnu4')),
    ]);
    assert.deepEqual([...slots], [105]);
  });

  it('hashes bytes, so a NUL or raw byte counts like any other', () => {
    assert.equal(slot(new Uint8Array([0x7b, 0x00, 0x7d])), crc16(new Uint8Array([0])) % 16384);
  });
});

describe('the reserve', () => {
  it('is {emq}: with the wire identity at {emq}:version on slot 9051', () => {
    assert.equal(reserve('version'), '{emq}:version');
    assert.equal(versionKey(), vectors.reserve.versionKey);
    assert.equal(slot(versionKey()), vectors.reserve.slot);
    assert.equal(WIRE4_IDENTITY, vectors.reserve.wire4);
    assert.equal(WIRE6_IDENTITY, vectors.reserve.wire6);
  });
});

describe('branded ids', () => {
  it('round-trips the vectors', () => {
    for (const { id, value } of vectors.brandedIds.valid) {
      assert.equal(parseId(id).value, BigInt(value));
      assert.equal(formatId(id.slice(0, 3), BigInt(value)), id);
    }
    for (const id of vectors.brandedIds.invalid) assert.equal(isBrandedId(id), false, id);
    for (const id of vectors.brandedIds.validJobIds) assert.equal(isBrandedId(id), true, id);
  });

  it('formats every width of value, a digit at each edge of its chunks, and refuses a bad namespace', () => {
    const max = (1n << 63n) - 1n;
    const edges = [0n, 1n, 61n, 62n, 62n ** 5n - 1n, 62n ** 5n, 62n ** 10n - 1n, 62n ** 10n, max];
    for (const value of [...edges, 0x1234_5678_9abc_def0n, 7n * 62n ** 9n + 3n]) {
      const id = formatId('JOB', value);
      assert.equal(id.length, 14, id);
      assert.equal(parseId(id).value, value, id);
    }
    assert.equal(formatId('JOB', max), 'JOBAzL8n0Y58m7');
    assert.throws(() => formatId('job', 1n), /namespace 'job' is not 3 letters A-Z/);
    assert.throws(() => formatId('JOBS', 1n), /branded id has 14/);
    assert.throws(() => formatId('JOB', max + 1n), RangeError);
  });

  it('mints in order: byte order is mint order, within a millisecond and across a clock step back', () => {
    let now = Date.UTC(2026, 10, 29);
    const minter = new IdMinter(7, () => now);
    const ids: string[] = [];
    for (let i = 0; i < 5000; i += 1) {
      if (i % 1000 === 0) now += 1;
      if (i === 2500) now -= 60_000; // the clock steps back a minute
      ids.push(minter.mint());
    }
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids);
    assert.deepEqual(
      ids.map((id) => parseId(id).value),
      [...ids].map((id) => parseId(id).value).sort((a, b) => (a < b ? -1 : 1)),
    );
    assert.equal(describeId(ids[0]!).node, 7);
  });

  it('borrows the next millisecond when 4096 ids fill one', () => {
    const minter = new IdMinter(0, () => Date.UTC(2026, 0, 1));
    const ids = Array.from({ length: 4097 }, () => minter.mint());
    assert.equal(describeId(ids[4096]!).sequence, 0);
    assert.equal(describeId(ids[4096]!).mintedAt.getTime(), Date.UTC(2026, 0, 1) + 1);
  });
});

describe('quoting bytes in messages', () => {
  it("escapes everything outside printable ASCII, and ' and \\", () => {
    assert.equal(quoteBytes("a'b\\c\u0000é"), "'a\\x27b\\x5cc\\x00\\xc3\\xa9'");
  });
});

describe('the value type the layout gives a key', () => {
  it('is each fixed key type’s value in the registry, and places rows, lanes and the reserve', () => {
    for (const [type, { value }] of Object.entries(KEY_TYPES)) {
      if (type === 'job:') continue;
      assert.equal(layoutValueType(queueKey('orders', type as KeyType)), value, type);
    }
    assert.equal(layoutValueType(jobKey('orders', 'JOB0Nb1VTbfnu4')), 'hash');
    assert.equal(layoutValueType(laneKey('orders', 'JOB0Nb1VTbfnu4')), 'zset');
    assert.equal(layoutValueType(versionKey()), 'string');
    for (const outside of ['foo', 'emq:{orders}:nope', 'emq:orders:pending', 'emq:{orders}:g:short:pending'])
      assert.equal(layoutValueType(outside), undefined, outside);
  });
});
