// Regenerates docs/wire.md's error table from the error catalogue, the one place each text is written
// (server/contract/catalogue/error-codes.ts). Run: node scripts/wire-doc.ts
// tests/unit/error-codes.test.ts fails while the committed page differs from what this writes.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wireDoc } from '../server/contract/catalogue/markdown.ts';
import { projectRoot } from '../server/project-root.ts';

const path = join(projectRoot(), 'docs', 'wire.md');
writeFileSync(path, wireDoc(readFileSync(path, 'utf8')));
console.log('docs/wire.md: its error table regenerated from server/contract/catalogue/error-codes.ts');
