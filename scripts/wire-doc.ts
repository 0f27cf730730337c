// Regenerates docs/wire.md's two tables: the transitions from the transition table
// (server/contract/transitions.ts) and the errors from the error catalogue
// (server/contract/catalogue/error-codes.ts), the one place each is written. Run: node scripts/wire-doc.ts
// tests/unit/transitions-table.test.ts and tests/unit/error-codes.test.ts fail while the committed page
// differs from what this writes.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wireDoc } from '../server/contract/catalogue/markdown.ts';
import { withTransitionTable } from '../server/contract/transition-markdown.ts';
import { projectRoot } from '../server/project-root.ts';

const path = join(projectRoot(), 'docs', 'wire.md');
writeFileSync(path, wireDoc(withTransitionTable(readFileSync(path, 'utf8'))));
console.log(
  'docs/wire.md: its transition and error tables regenerated from the transition table and the catalogue',
);
