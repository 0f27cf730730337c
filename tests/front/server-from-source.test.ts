// One runtime per process, by construction: Astro's server build imports the project's server/ code
// from source (astro.config.mjs) instead of bundling a copy, so the island and the JSON API load one
// module each, from one file. This holds the built site to it: no file under dist/server carries the
// code of a server/ module, and every import of server/ there names a file that exists, relative to
// the chunk, as Node resolves it.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { DIST, ensureBuilt, ROOT } from '../../scripts/site.ts';

const SERVER = join(ROOT, 'server');
const BUILT = join(DIST, 'server');

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return filesUnder(path, suffix);
    return path.endsWith(suffix) ? [path] : [];
  });
}

/** A module's longest string literal that is not an import's path: text only its code holds. */
function fingerprint(path: string): string | undefined {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
  let longest: string | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      node.text.length >= 32 &&
      node.text.length > (longest?.length ?? 0)
    ) {
      longest = node.text;
    }
    node.forEachChild(visit);
  };
  visit(file);
  return longest;
}

/** Every import specifier of a built module (static and dynamic). */
function importsOf(code: string): string[] {
  return [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"']+)\1/g)].map((m) => m[2]!);
}

ensureBuilt();
const built = filesUnder(BUILT, '.mjs').map((path) => ({ path, code: readFileSync(path, 'utf8') }));

describe('the server build imports server/ instead of copying it', () => {
  it('the explorer runtime’s code is in no file under dist/server', () => {
    const text = fingerprint(join(SERVER, 'explorer/runtime.ts'));
    assert.ok(text, 'runtime.ts has a string literal to look for');
    for (const { path, code } of built)
      assert.ok(!code.includes(text), `${relative(ROOT, path)} copies runtime.ts`);
  });

  it('nor is any other server/ module’s', () => {
    let looked = 0;
    for (const module of filesUnder(SERVER, '.ts')) {
      const text = fingerprint(module);
      if (!text) continue;
      looked += 1;
      for (const { path, code } of built) {
        assert.ok(!code.includes(text), `${relative(ROOT, path)} copies ${relative(ROOT, module)}`);
      }
    }
    assert.ok(looked > 20, `${looked} modules fingerprinted`);
  });

  // The island asks the contract's live-state for what serve.ts provided: one module instance for both,
  // so the island and the JSON API share one runtime.
  it('the island’s chunk imports server/contract/live-state.ts, and every server/ import names a file there', () => {
    const island = join(SERVER, 'contract/live-state.ts');
    let islandImported = false;
    for (const { path, code } of built) {
      for (const specifier of importsOf(code)) {
        const target = specifier.startsWith('.') ? resolve(dirname(path), specifier) : specifier;
        if (!target.startsWith(SERVER + '/')) continue;
        assert.ok(specifier.startsWith('../'), `${specifier} is relative (the site may move)`);
        assert.ok(existsSync(target), `${relative(ROOT, path)} imports ${specifier}, which does not exist`);
        if (target === island) islandImported = true;
      }
    }
    assert.ok(islandImported, 'a chunk under dist/server imports server/contract/live-state.ts');
  });
});
