// The grammar composes every key (server/contract/keyspace/): no other file of the site's code — server,
// browser, scripts, benchmarks — writes a key of the namespace (`emq:{…`, `emq:*`) or the reserve
// (`{emq}:…`) as code. Read by the TypeScript compiler's own parse, string by string, so comments are
// not read; what is flagged:
// - a key composed by hand: a template whose key runs into a `${…}` (`emq:{${queue}}:pending`);
// - a key written whole as a value: a string that is nothing but a key or a key pattern ('emq:*').
// What is not: a key inside a sentence or a command line (text with spaces: an error message, a
// summary, an example line a reader types), and the markup of .astro pages, like the course's MDX: text
// for readers, which must show the very bytes a reader reads. The console's example lines and the
// exercises' answers (src/components/console/) are that text too: what a reader types, written out.
// Tests are not read: they state the bytes the grammar must build, so they cannot build them with it.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { projectRoot } from '../../server/project-root.ts';

const ROOT = projectRoot();
const FOLDERS = ['server', 'src', 'scripts', 'bench'];
/** The grammar itself, and the text a reader types in the console, written out for the reader. */
const COMPOSES = 'server/contract/keyspace/';
const READER_TEXT = [
  'src/components/console/examples.ts',
  'src/components/console/exercises.ts',
  'src/components/console/exercise-answers.ts',
];

/** A substitution, in a template's text as read here. */
const HOLE = '\u0000';
const KEY_START = /emq:\{|emq:\*|\{emq\}:/;

/** What a string holds that the grammar alone may write, or null. */
function handKey(text: string): string | null {
  for (const word of text.split(/\s+/)) {
    const at = word.search(KEY_START);
    if (at >= 0 && word.includes(HOLE, at)) return `a key composed by hand: ${word.replaceAll(HOLE, '${…}')}`;
  }
  const whole = text.trim();
  if (!/\s/.test(whole) && (/^~?(emq:(\{|\*|$)|\{emq\}:)/.test(whole) || whole === '{emq}:'))
    return `a key written as a value: ${whole.replaceAll(HOLE, '${…}')}`;
  return null;
}

/** The code of a file: all of a .ts file; an .astro file's frontmatter and scripts, not its markup. */
function codeOf(file: string, text: string): string[] {
  if (!file.endsWith('.astro')) return [text];
  const front = /^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? '';
  const scripts = [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  return [front, ...scripts];
}

/** Every string of the code, a template's substitutions as HOLE, with its line. */
function stringsOf(file: string, code: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Array<{ line: number; text: string }> = [];
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      found.push({ line: line(node), text: node.text });
    } else if (ts.isTemplateExpression(node)) {
      const text = node.head.text + node.templateSpans.map((span) => HOLE + span.literal.text).join('');
      found.push({ line: line(node), text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function codeFiles(): string[] {
  return FOLDERS.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => /\.(ts|astro)$/.test(name) && !name.endsWith('.d.ts'))
      .map((name) => `${folder}/${name}`),
  );
}

test('no file outside the keyspace module composes a key of the namespace or the reserve', () => {
  const found: string[] = [];
  for (const file of codeFiles()) {
    if (file.startsWith(COMPOSES) || READER_TEXT.includes(file)) continue;
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const code of codeOf(file, text))
      for (const { line, text: string } of stringsOf(file, code)) {
        const why = handKey(string);
        if (why) found.push(`${file}:${line}: ${why}`);
      }
  }
  assert.deepEqual(found, [], 'compose keys with the keyspace module (queueKey, queuePrefix, queuePattern…)');
});

test('the scan sees what it is about: each kind of hand key is flagged, text for readers is not', () => {
  const template = (code: string) => stringsOf('probe.ts', code).map(({ text }) => handKey(text));
  assert.match(
    template('const k = `emq:{${queue}}:pending`;')[0]!,
    /composed by hand: emq:\{\$\{…\}\}:pending/,
  );
  assert.match(template("const k = '{emq}:' + suffix;")[0]!, /written as a value: \{emq\}:/);
  assert.match(template("node.call('SCAN', '0', 'MATCH', 'emq:*');").at(-1)!, /written as a value: emq:\*/);
  assert.match(template("const acl = '~emq:*';")[0]!, /written as a value/);
  assert.match(template('const k = `SET {emq}:${name} x`;')[0]!, /composed by hand/);
  assert.deepEqual(
    template(
      "const a = 'a queue’s settings are the hash emq:{<queue>}:meta'; const b = 'GET {emq}:version'; // emq:{x}:y\n" +
        "const c = 'emq:part'; const d = `emq: ${message}`;",
    ),
    [null, null, null, null],
  );
  // An .astro page: its frontmatter and scripts are code, its markup is text for readers.
  const page =
    "---\nconst k = 'emq:{orders}:pending';\n---\n<p>{'{emq}:version'}</p>\n<script>const j = `emq:{${q}}:x`;</script>";
  const strings = codeOf('Page.astro', page).flatMap((code) => stringsOf('Page.astro', code));
  assert.deepEqual(
    strings.map(({ text }) => handKey(text) !== null),
    [true, true],
  );
  // The folders it reads hold code that writes keys, and the grammar's own file is among what it skips.
  const files = codeFiles();
  assert.ok(
    files.includes('server/explorer/explorer-user.ts') &&
      files.includes('src/components/explorer/slot-view.ts'),
  );
  assert.ok(files.some((file) => file.startsWith(COMPOSES)));
  for (const file of READER_TEXT)
    assert.ok(files.includes(file), `${file} is no longer there: drop it from READER_TEXT`);
});
