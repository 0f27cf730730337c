// The scripts check themselves: each file's `-N` is its transition's declared key count, its header
// declares exactly those KEYS, and includes resolve recursively, each fragment once, with an error that
// names the chain when one is missing or loops.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LUA_DIR } from '../../server/executors/scripts.ts';
import { TRANSITIONS } from '../../server/contract/transitions.ts';
import { assemble, luaScript } from '../../server/lua/lua-file.ts';
import { projectRoot } from '../../server/project-root.ts';

describe('the transition scripts', () => {
  it('name their key count, -N, as the transition table declares it, and declare those KEYS', () => {
    for (const [transition, { script, keys }] of Object.entries(TRANSITIONS)) {
      const n = Number(/-(\d+)\.lua$/.exec(script)?.[1]);
      assert.equal(n, keys.length, `${script}: -${n} but ${transition} declares ${keys.length} keys`);
      const declared = [...assemble(script, LUA_DIR).matchAll(/^\s+KEYS\[(\d+)\]/gm)].map((m) =>
        Number(m[1]),
      );
      assert.deepEqual(
        declared,
        keys.map((_, i) => i + 1),
        `${script}: the header's KEYS`,
      );
    }
  });

  it('are every file of the lua folder, and nothing else', () => {
    const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua'));
    assert.deepEqual(
      files.sort(),
      Object.values(TRANSITIONS)
        .map((t) => t.script)
        .sort(),
    );
  });

  it('carry each include once, and no include line is left', () => {
    for (const { script } of Object.values(TRANSITIONS)) {
      const source = assemble(script, LUA_DIR);
      assert.doesNotMatch(source, /@include/, script);
      for (const fn of source.matchAll(/^local function (\w+)/gm)) {
        const count = source.split(`local function ${fn[1]}(`).length - 1;
        assert.equal(count, 1, `${script}: ${fn[1]} defined ${count} times`);
      }
    }
    // check-kind brings quote with it: enqueue no longer lists it by hand.
    assert.match(assemble('enqueue-2.lua', LUA_DIR), /local function quote[\s\S]*local function refuse_kind/);
  });
});

describe('the sandbox’s scripts (the pool’s, the run lock’s, the clean-up’s)', () => {
  const scripts = ['explorer', 'cluster'].flatMap((room) => {
    const dir = join(projectRoot(), 'server', room, 'lua');
    return readdirSync(dir)
      .filter((f) => f.endsWith('.lua'))
      .map((file) => ({ dir, file }));
  });

  it('follow the transitions’ header: -N keys, declared as KEYS, with ARGV, Input and Output', () => {
    assert.ok(scripts.length >= 2, `found the scripts (${scripts.length})`);
    for (const { dir, file } of scripts) {
      const count = /-(\d+|n)\.lua$/.exec(file)?.[1];
      const { source } = luaScript(dir, file);
      const header = /^--\[\[([\s\S]*?)\]\]/.exec(source)?.[1] ?? '';
      assert.match(header, /Input:[\s\S]*Output:/, `${file}: the header has Input and Output`);
      if (count === 'n') {
        // Any number of keys (a lease per database): declared as the range KEYS[1] … KEYS[n].
        assert.match(header, /^\s+KEYS\[1\] … KEYS\[n\]/m, `${file}: the header's KEYS`);
      } else {
        const declared = [...header.matchAll(/^\s+KEYS\[(\d+)\]/gm)].map((m) => Number(m[1]));
        assert.deepEqual(
          declared,
          [...Array(Number(count)).keys()].map((i) => i + 1),
          `${file}: the header's KEYS`,
        );
      }
      const used = new Set([...source.matchAll(/ARGV\[(\d+)\]/g)].map((m) => m[1]));
      for (const i of used)
        assert.match(header, new RegExp(`ARGV\\[${i}\\]`), `${file}: ARGV[${i}] declared`);
    }
  });

  it('are loaded once: the same text and sha each time', () => {
    for (const { dir, file } of scripts) assert.equal(luaScript(dir, file), luaScript(dir, file));
  });
});

describe('the server’s Lua', () => {
  it('lives in .lua files: no TypeScript source under server/ calls a command from a string of Lua', () => {
    const root = projectRoot();
    const sources = readdirSync(join(root, 'server'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => join('server', file));
    const inline = sources.filter((file) => {
      const code = readFileSync(join(root, file), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line)) // comments may name a call
        .join('\n');
      // `redis.call`: the scripts' spelling (scriptCommands reads it); `server.call` is a client's, in TS
      return /redis\.p?call\(\s*['"][A-Za-z]/.test(code);
    });
    assert.deepEqual(inline, []);
    assert.ok(sources.length > 50, `read the sources (${sources.length})`);
  });
});

describe('assemble', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lua-'));
  mkdirSync(join(dir, 'includes'));
  const file = (name: string, text: string) => writeFileSync(join(dir, name), text);
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves includes of includes, each fragment once, where first asked for', () => {
    file('includes/a.lua', '--- @include "c"\nA\n');
    file('includes/b.lua', '--- @include "c"\nB\n');
    file('includes/c.lua', 'C\n');
    file('s-1.lua', 'head\n--- @include "a"\n--- @include "b"\n--- @include "c"\ntail\n');
    assert.equal(assemble('s-1.lua', dir), 'head\nC\nA\nB\ntail\n');
  });

  it('names the chain of a missing include, a cycle and a bad name', () => {
    file('includes/x.lua', '--- @include "y"\n');
    file('includes/y.lua', '--- @include "nowhere"\n');
    file('missing-1.lua', '--- @include "x"\n');
    assert.throws(() => assemble('missing-1.lua', dir), {
      message: new RegExp(`^missing-1\\.lua → x → y → nowhere: no include named "nowhere"`),
    });
    file('includes/p.lua', '--- @include "q"\n');
    file('includes/q.lua', '--- @include "p"\n');
    file('cycle-1.lua', '--- @include "p"\n');
    assert.throws(() => assemble('cycle-1.lua', dir), {
      message: 'cycle-1.lua → p → q → p: an include cycle',
    });
    file('bad-1.lua', '--- @include "../escape"\n');
    assert.throws(() => assemble('bad-1.lua', dir), {
      message: `bad-1.lua → ../escape: an include is named with a-z and '-' only, found "../escape"`,
    });
  });
});
