// Regenerates docs/api.md's table of experiments from the one table (server/contract/experiment-table.ts).
// Run: node scripts/api-doc.ts — tests/unit/experiment-table.test.ts fails while the committed page differs.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiDoc } from '../server/contract/experiment-doc.ts';
import { projectRoot } from '../server/project-root.ts';

const path = join(projectRoot(), 'docs', 'api.md');
writeFileSync(path, apiDoc(readFileSync(path, 'utf8')));
console.log('docs/api.md: its table of experiments regenerated from server/contract/experiment-table.ts');
