// Lua kept in .lua files, for every folder that sends scripts: a file's text with its includes put in
// place (`--- @include "<name>"`, from the folder's includes/, recursively, each once), and its sha
// computed once from the exact text sent, so a caller can check what SCRIPT LOAD answers.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Script {
  file: string;
  source: string;
  sha: string;
}

const INCLUDE = /^--- @include "([^"]*)"$(\n?)/gm;
const INCLUDE_NAME = /^[a-z-]+$/;

/**
 * A script's text with its includes put in place, as it is sent to the server. Includes may include
 * others; each fragment goes in once, where it is first asked for. A missing fragment, a bad name or a
 * cycle is an error naming the chain of includes that led to it.
 */
export function assemble(file: string, dir: string): string {
  const placed = new Set<string>();
  const expand = (text: string, chain: string[]): string =>
    text.replace(INCLUDE, (_, name: string, newline: string) => {
      const path = [...chain, name].join(' → ');
      if (!INCLUDE_NAME.test(name)) {
        throw new Error(`${path}: an include is named with a-z and '-' only, found ${JSON.stringify(name)}`);
      }
      if (chain.includes(name)) throw new Error(`${path}: an include cycle`);
      if (placed.has(name)) return '';
      placed.add(name);
      const at = join(dir, 'includes', `${name}.lua`);
      if (!existsSync(at)) throw new Error(`${path}: no include named "${name}" (${at})`);
      return expand(readFileSync(at, 'utf8'), [...chain, name]).trimEnd() + newline;
    });
  return expand(readFileSync(join(dir, file), 'utf8'), [file]);
}

export function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

const loaded = new Map<string, Script>();

/** The script `file` of the folder `dir`, assembled and hashed on first use, then kept. */
export function luaScript(dir: string, file: string): Script {
  // Keyed by the two names as given, not their joined path: a run finds its script on every call.
  const at = `${dir}\0${file}`;
  let script = loaded.get(at);
  if (!script) {
    const source = assemble(file, dir);
    script = { file, source, sha: sha1(source) };
    loaded.set(at, script);
  }
  return script;
}
