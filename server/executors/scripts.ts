// The Lua of the scripted executor: one file per transition in ./lua, shared fragments in ./lua/includes
// pulled in by `--- @include "<name>"`, assembled and hashed once by server/lua/lua-file.ts.

import { join } from 'node:path';
import { luaScript, type Script } from '../lua/lua-file.ts';
import { projectRoot } from '../project-root.ts';
import { TRANSITIONS, type TransitionName } from '../contract/transitions.ts';

export const LUA_DIR = join(projectRoot(), 'server', 'executors', 'lua');

export function scriptFor(transition: TransitionName): Script {
  return luaScript(LUA_DIR, TRANSITIONS[transition].script);
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
