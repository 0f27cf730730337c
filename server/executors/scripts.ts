// The inline Lua of the scripted executor: one file per transition in ./lua, shared fragments in
// ./lua/includes pulled in by `--- @include "<name>"`. Each script's sha is computed here, once, from
// the exact text sent, so the executor can check what SCRIPT LOAD answers.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../project-root.ts';
import { TRANSITIONS, type TransitionName } from './transitions.ts';

export interface Script {
  file: string;
  source: string;
  sha: string;
}

export const LUA_DIR = join(projectRoot(), 'server', 'executors', 'lua');
const INCLUDE = /^--- @include "([a-z-]+)"$/gm;

/** A script's text with its includes put in place, as it is sent to the server. */
export function assemble(file: string): string {
  return readFileSync(join(LUA_DIR, file), 'utf8').replace(INCLUDE, (_, name: string) =>
    readFileSync(join(LUA_DIR, 'includes', `${name}.lua`), 'utf8').trimEnd(),
  );
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
