// The inline Lua of the scripted executor: one file per transition in ./lua, shared fragments in
// ./lua/includes pulled in by `--- @include "<name>"` (recursively, each once). Each script's sha is computed here, once, from
// the exact text sent, so the executor can check what SCRIPT LOAD answers.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../project-root.ts';
import { TRANSITIONS, type TransitionName } from './transitions.ts';

export interface Script {
  file: string;
  source: string;
  sha: string;
}

export const LUA_DIR = join(projectRoot(), 'server', 'executors', 'lua');
const INCLUDE = /^--- @include "([^"]*)"$(\n?)/gm;
const INCLUDE_NAME = /^[a-z-]+$/;

/**
 * A script's text with its includes put in place, as it is sent to the server. Includes may include
 * others; each fragment goes in once, where it is first asked for. A missing fragment, a bad name or a
 * cycle is an error naming the chain of includes that led to it.
 */
export function assemble(file: string, dir = LUA_DIR): string {
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

const scripts = new Map<TransitionName, Script>();

export function scriptFor(transition: TransitionName): Script {
  let script = scripts.get(transition);
  if (!script) {
    const file = TRANSITIONS[transition].script;
    const source = assemble(file);
    script = { file, source, sha: sha1(source) };
    scripts.set(transition, script);
  }
  return script;
}

const CALL = /redis\.p?call\(\s*(["'])([A-Za-z|]+)\1/g;

/**
 * Every command the assembled scripts call (`redis.call("NAME", …)`), lower-case and sorted: the
 * explorer account allows exactly these inside scripts. A call whose name is not a literal is refused
 * here, since no list could be derived for it.
 */
export function scriptCommands(): string[] {
  const names = new Set<string>();
  for (const transition of Object.keys(TRANSITIONS) as TransitionName[]) {
    const { file, source } = scriptFor(transition);
    const literal = [...source.matchAll(CALL)];
    const all = source.match(/redis\.p?call\(/g) ?? [];
    if (all.length !== literal.length)
      throw new Error(`${file} calls a command whose name is not a literal; name it in the call`);
    for (const match of literal) names.add(match[2]!.toLowerCase());
  }
  return [...names].sort();
}
