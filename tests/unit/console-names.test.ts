// Console command names are ASCII: JavaScript upper-cases `ſ` (long s) to `S` and `ı` (dotless i) to
// `I`, so a name the server does not know could pass the list as one it does. Each is refused by name.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plan } from '../../server/contract/console/allow-list.ts';
import { splitLine } from '../../server/contract/console/split-line.ts';

const planned = (line: string) => plan(splitLine(line));

describe('console command names, ASCII only', () => {
  for (const line of ['ſcan 0', 'ſCAN 0', 'pıng', 'ᴘING', 'ＰＩＮＧ', 'GEТ emq:{a}:pending', '"\\xffPING"']) {
    it(`${line}: refused by name, before any server`, () => {
      const answer = planned(line);
      assert.equal(answer.ok, false);
      if (answer.ok) return;
      assert.equal(answer.code, 'NOT_ALLOWED');
      assert.match(answer.message, /a command name is ASCII/);
    });
  }

  it('ASCII names in any case still plan; a sub-command or option is upper-cased as ASCII only', () => {
    assert.equal(planned('scan 0').ok, true);
    assert.equal(planned('Ping').ok, true);
    assert.equal(planned('cluster keyslot emq:{a}:pending').ok, true);
    assert.equal(planned('cluster keyſlot emq:{a}:pending').ok, false);
    assert.equal(planned('script claım 3 emq:{a}:pending emq:{a}:active emq:{a}:job: 1').ok, false);
    assert.equal(planned('SCAN 0 ᴄOUNT 10').ok, false);
    assert.equal(planned('SCAN 0 count 10').ok, true);
  });
});

describe('a console line beyond U+FFFF', () => {
  it('keeps the character whole, bare, quoted or escaped (a pair read one unit at a time was two U+FFFD)', () => {
    const emoji = [...new TextEncoder().encode('😀')];
    const args = splitLine(`ECHO 😀 "é😀" '😀' "\\😀"`).map((arg) => [...arg]);
    assert.deepEqual(args.slice(1), [emoji, [0xc3, 0xa9, ...emoji], emoji, emoji]);
  });
});
