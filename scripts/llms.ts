// Regenerates the committed top-level llms.txt: builds the site if it is stale, then copies the
// /llms.txt it serves (generated from the content collection). Run: node scripts/llms.ts
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT, ensureBuilt, ROOT } from './site.ts';

// The committed copy is the map as built without the site's public URL: its links relative, so it reads
// the same wherever the repository is; with SITE_URL set, the built one would name that site.
if (process.env.SITE_URL) {
  console.error(
    'scripts/llms.ts: unset SITE_URL first: the committed llms.txt is built without it (relative links)',
  );
  process.exit(2);
}
ensureBuilt();
copyFileSync(join(CLIENT, 'llms.txt'), join(ROOT, 'llms.txt'));
console.log('llms.txt regenerated from dist/client/llms.txt');
