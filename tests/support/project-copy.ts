// A copy of the project in a temporary folder, for the tests that change or build the tree without
// touching this one (adding an experiment, adding a console command, the site built for a public URL):
// the named parts copied, the heavy ones (node_modules, the native module) linked. The caller removes it.

import { cpSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../server/project-root.ts';

/** A fresh folder named after `name` holding `copied` (copied) and `linked` (symlinked) from the project. */
export function copyOfProject(name: string, copied: readonly string[], linked: readonly string[]): string {
  const root = projectRoot();
  const copy = mkdtempSync(join(tmpdir(), `${name}-`));
  for (const path of copied) cpSync(join(root, path), join(copy, path), { recursive: true });
  for (const path of linked) symlinkSync(join(root, path), join(copy, path));
  return copy;
}
