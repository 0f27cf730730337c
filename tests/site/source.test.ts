// The extractor behind every code panel, on small sources written here (the project's own files are
// checked against the built pages in panels.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { locate } from '../../src/lib/source.ts';

const ts = `import { x } from './x.ts';

/** Builds a key. */
export function queueKey(q: string, type: KeyType): string {
  if (q.includes('{')) throw new Error(\`bad \${q} }\`);
  const re = /[{]/;
  return \`emq:{\${q}}:\${type}\`;
}

export const KEY_TYPES = [
  'pending',
  'active',
] as const;

// the braced base
export const RESERVE = '{emq}:';

export function shape(a: { x: number }): { y: number } {
  return { y: a.x };
}
`;

test('a TS function, with its doc comment, by bracket matching', () => {
  const s = locate(ts, 'ts', 'queueKey')!;
  assert.equal(s.startLine, 3);
  assert.equal(s.endLine, 8);
  assert.ok(s.text.startsWith('/** Builds a key. */\nexport function queueKey('));
  assert.ok(s.text.endsWith('\n}'));
});

test('a TS const over several lines, and a one-line const with its comment', () => {
  assert.equal(
    locate(ts, 'ts', 'KEY_TYPES')!.text,
    "export const KEY_TYPES = [\n  'pending',\n  'active',\n] as const;",
  );
  assert.equal(locate(ts, 'ts', 'RESERVE')!.text, "// the braced base\nexport const RESERVE = '{emq}:';");
});

test('a braced return type does not end the function', () => {
  assert.equal(locate(ts, 'ts', 'shape')!.endLine, 20);
});

test('a missing symbol is null', () => {
  assert.equal(locate(ts, 'ts', 'nope'), null);
});

const rs = `use std::fmt;

/// A queue name recovered from a key.
#[derive(Debug)]
pub struct Queue<'a> {
    name: &'a [u8],
}

impl<'a> Queue<'a> {
    /// Parses \`emq:{name}:type\`.
    pub fn from_key(key: &'a [u8], ty: &str) -> Result<Self, String> {
        let open = b'{';
        let s = "}";
        let r = r#"a "quoted" }"#;
        Ok(Queue { name: key })
    }

    fn other(&self) {}
}

pub fn slot(key: &[u8]) -> u16 {
    0
}
`;

test('Rust: Type::method, a struct with attributes, a free fn', () => {
  const m = locate(rs, 'rust', 'Queue::from_key')!;
  assert.equal(m.startLine, 10);
  assert.equal(m.endLine, 16);
  assert.ok(m.text.trimStart().startsWith('/// Parses'));
  const st = locate(rs, 'rust', 'struct Queue')!;
  assert.equal(st.startLine, 3);
  assert.equal(st.endLine, 7);
  assert.equal(locate(rs, 'rust', 'impl Queue')!.endLine, 19);
  assert.equal(locate(rs, 'rust', 'slot')!.text, 'pub fn slot(key: &[u8]) -> u16 {\n    0\n}');
});

test('Lua: the whole file, without trailing blank lines', () => {
  const lua = '-- claim\nlocal id = redis.call("ZPOPMIN", KEYS[1])\nreturn id\n\n';
  assert.deepEqual(locate(lua, 'lua', null), {
    text: '-- claim\nlocal id = redis.call("ZPOPMIN", KEYS[1])\nreturn id',
    startLine: 1,
    endLine: 3,
  });
});
