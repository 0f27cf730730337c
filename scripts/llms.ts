// Regenerates the committed top-level llms.txt: builds the site if it is stale, then copies the
// /llms.txt it serves (generated from the content collection). Run: node scripts/llms.ts
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT, ensureBuilt, ROOT } from './site.ts';

ensureBuilt();
copyFileSync(join(CLIENT, 'llms.txt'), join(ROOT, 'llms.txt'));
console.log('llms.txt regenerated from dist/client/llms.txt');
