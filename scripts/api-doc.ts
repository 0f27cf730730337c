// Regenerates docs/api.md's table of experiments from the one table (server/contract/experiment-table.ts)
// and its table of the console's commands from their rows (server/contract/console/commands.ts).
// Run: node scripts/api-doc.ts — tests/unit/experiment-table.test.ts and
// tests/unit/console-commands.test.ts fail while the committed page differs.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withConsoleTable } from '../server/contract/console/command-doc.ts';
import { apiDoc } from '../server/contract/experiment-doc.ts';
import { projectRoot } from '../server/project-root.ts';

const path = join(projectRoot(), 'docs', 'api.md');
writeFileSync(path, withConsoleTable(apiDoc(readFileSync(path, 'utf8'))));
console.log('docs/api.md: its tables of experiments and console commands regenerated from their rows');
