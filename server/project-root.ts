// Where the project's files are, found from this module's own location. Walking up works both from
// the sources and from the bundle Astro builds under dist/, which stays inside the project.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

export function projectRoot(): string {
  if (root) return root;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'the-owned-keyspace') {
      return (root = dir);
    }
    if (dirname(dir) === dir) throw new Error('cannot find the project root above ' + import.meta.url);
  }
}
