// The extractor behind every code panel, on small sources written here (the project's own files are
// checked against the built pages in source-panels.test.ts): TypeScript as the compiler parses it, Rust
// between its anchors, Lua whole; and a panel naming what is not there fails, never shows a placeholder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { locate, readSymbol } from '../../src/lib/source.ts';
import { ROOT } from '../../scripts/site.ts';

const source = `import { x } from './x.ts';

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

// not a note of queueKeys: a blank line lies between

export function queueKeys(queue: string): Array<{ type: string; key: string }> {
  return [];
}

function local(): void {}
export function local(): void {}

export function over(a: string): string;
export function over(a: number): number;
export function over(a: unknown): unknown {
  return a;
}
`;

test('a TS function, with its doc comment, as the compiler parses it', () => {
  const s = locate(source, 'ts', 'queueKey')!;
  assert.equal(s.startLine, 3);
  assert.equal(s.endLine, 8);
  assert.ok(s.text.startsWith('/** Builds a key. */\nexport function queueKey('));
  assert.ok(s.text.endsWith('\n}'));
});

test('a TS const over several lines, and a one-line const with its comment', () => {
  assert.equal(
    locate(source, 'ts', 'KEY_TYPES')!.text,
    "export const KEY_TYPES = [\n  'pending',\n  'active',\n] as const;",
  );
  assert.equal(locate(source, 'ts', 'RESERVE')!.text, "// the braced base\nexport const RESERVE = '{emq}:';");
});

test('a braced return type does not end the function, and a comment a blank line above is not its note', () => {
  assert.equal(locate(source, 'ts', 'shape')!.endLine, 20);
  const keys = locate(source, 'ts', 'queueKeys')!;
  assert.equal(keys.startLine, 24);
  assert.equal(keys.endLine, 26);
});

test('the exported declaration wins over a local one; overloads run on to the implementation', () => {
  assert.equal(locate(source, 'ts', 'local')!.text, 'export function local(): void {}');
  const over = locate(source, 'ts', 'over')!;
  assert.equal(over.startLine, 31);
  assert.equal(over.endLine, 35);
});

test('a missing symbol is null to locate, and fails the panel naming it', () => {
  assert.equal(locate(source, 'ts', 'nope'), null);
  assert.throws(() => readSymbol(ROOT, 'server/contract/keyspace/grammar.ts', 'nope'), {
    message: 'a code panel names nope in server/contract/keyspace/grammar.ts, which declares no such symbol',
  });
  assert.throws(() => readSymbol(ROOT, 'server/contract/keyspace/nothing.ts', 'queueKey'), {
    message: 'a code panel names server/contract/keyspace/nothing.ts, which does not exist',
  });
  assert.throws(
    () => readSymbol(ROOT, 'native-module/src/keyspace.rs', 'Queue::nope'),
    /'\/\/ panel: Queue::nope'/,
  );
});

const rs = `use std::fmt;

impl<'a> Queue<'a> {
    // panel: Queue::from_key (the course shows these lines)
    /// Parses \`emq:{name}:type\`.
    pub fn from_key(key: &'a [u8]) -> Result<Self, String> {
        let s = "}";
        Ok(Queue { name: key })
    }
    // end of panel: Queue::from_key

    fn other(&self) {}
}

// panel: Queue::from_keys
pub fn unclosed() {}
`;

test('Rust: the lines between a symbol’s anchors, the anchors left out; an anchor without its end is null', () => {
  const m = locate(rs, 'rust', 'Queue::from_key')!;
  assert.equal(m.startLine, 5);
  assert.equal(m.endLine, 9);
  assert.ok(m.text.trimStart().startsWith('/// Parses'));
  assert.equal(locate(rs, 'rust', 'Queue::from_keys'), null);
  assert.equal(locate(rs, 'rust', 'other'), null);
});

test('Lua: the whole file, without trailing blank lines', () => {
  const lua = '-- claim\nlocal id = redis.call("ZPOPMIN", KEYS[1])\nreturn id\n\n';
  assert.deepEqual(locate(lua, 'lua', null), {
    text: '-- claim\nlocal id = redis.call("ZPOPMIN", KEYS[1])\nreturn id',
    startLine: 1,
    endLine: 3,
  });
});

test('every top-level TypeScript declaration of the project is cut where the compiler ends it', () => {
  // Each declaration of server/ and src/lib/, located by name, ends on the line its node ends on
  // (bracket matching got 17 of these wrong, queueKeys among them).
  let checked = 0;
  for (const folder of ['server', 'src/lib']) {
    for (const name of readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })) {
      if (!name.endsWith('.ts')) continue;
      const text = readFileSync(join(ROOT, folder, name), 'utf8');
      const parsed = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
      for (const statement of parsed.statements) {
        if (!ts.isFunctionDeclaration(statement) || !statement.body || !statement.name) continue;
        const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
        if (!exported) continue;
        const end = parsed.getLineAndCharacterOfPosition(statement.getEnd()).line + 1;
        assert.equal(
          locate(text, 'ts', statement.name.text)!.endLine,
          end,
          `${folder}/${name} ${statement.name.text}`,
        );
        checked += 1;
      }
    }
  }
  assert.ok(checked > 300, `${checked} declarations`);
});
