// The README's "Adding an experiment" is true: in a copy of the tree, a trivial experiment (`echo`) is
// added with exactly the files it names — its server file, its component and script, its row in each
// half of the table, docs/api.md regenerated — and the type check and the table's own test pass; with
// the server's row left out, the type check fails, and until docs/api.md is regenerated, the table's
// test does. The copy is removed after.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { projectRoot } from '../../server/project-root.ts';
import { copyOfProject } from '../support/project-copy.ts';

const ROOT = projectRoot();
let copy = '';

const ECHO_SERVER = `// echo: the text a reader sends, back.

import { fields, text } from '../input/fields.ts';
import { LIMITS } from '../contract/limits.ts';

export interface EchoInput {
  text: string;
}

export function parseEchoInput(body: unknown): EchoInput {
  return { text: text(fields(body, ['text']), 'text', LIMITS.queueBytes) };
}

export async function runEcho(_grant: unknown, input: EchoInput) {
  return { text: input.text };
}
`;

const ECHO_COMPONENT = `---
interface Props {
  live: boolean;
}
const { live } = Astro.props;
---

<emq-echo-experiment>
  <section class="xp-experiment" data-experiment="echo">
    <form data-form><button type="submit" disabled={!live}>Echo</button></form>
    <div data-result></div>
  </section>
</emq-echo-experiment>
`;

const ECHO_SCRIPT = `import { defineExperiment, type ExperimentApi } from './explorer-api.ts';

export function wireEcho(section: HTMLElement, api: ExperimentApi): void {
  const region = section.querySelector('[data-result]')!;
  section.querySelector('form')!.addEventListener('submit', async (event) => {
    event.preventDefault();
    const outcome = await api.run('echo', { text: 'hello' });
    region.textContent = outcome.ok ? outcome.result.text : outcome.message;
  });
}

defineExperiment('emq-echo-experiment', wireEcho);
`;

const TABLE_ROW = `  echo: row<{ text: string }, { text: string }>({
    summary: 'The text you send, back.',
    result: '\`text\`, as sent',
    input: { text: 'a string' },
    example: { text: 'hello' },
    parts: ['grammar'],
  }),
`;

function write(path: string, text: string) {
  writeFileSync(join(copy, path), text);
}

/** Inserts `text` into the copy's `path` just before `mark`, which must be there. */
function insertBefore(path: string, mark: string, text: string) {
  const was = readFileSync(join(copy, path), 'utf8');
  assert.ok(was.includes(mark), `${path} has ${JSON.stringify(mark)}`);
  write(path, was.replace(mark, text + mark));
}

/**
 * The copy's whole type check. Incremental: the second check re-reads only what the registry's row
 * changed (its build info kept in the copy), about half the first one's time.
 */
function typeCheck() {
  const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
  const incremental = ['--incremental', '--tsBuildInfoFile', join(copy, '.tsbuildinfo')];
  return spawnSync(tsc, ['--noEmit', ...incremental, '-p', copy], { encoding: 'utf8' });
}

before(() => {
  copy = copyOfProject(
    'adding-an-experiment',
    [
      'server',
      'src',
      'docs',
      'tests/unit/experiment-table.test.ts',
      'scripts/api-doc.ts',
      'README.md',
      'package.json',
      'tsconfig.json',
    ],
    ['node_modules', '.astro'],
  );
});

after(() => rmSync(copy, { recursive: true, force: true }));

test('an experiment is its server file, its component and script, a row in each half of the table, and docs/api.md regenerated', () => {
  write('server/experiments/echo.ts', ECHO_SERVER);
  write('src/components/explorer/EchoExperiment.astro', ECHO_COMPONENT);
  write('src/components/explorer/echo-experiment.ts', ECHO_SCRIPT);
  insertBefore('server/contract/experiment-table.ts', '};\n\nexport type ExperimentName', TABLE_ROW);

  const without = typeCheck();
  assert.notEqual(without.status, 0, 'the type check fails while the server’s half lacks the row');
  assert.match(without.stdout, /server\/api\/registry\.ts.*echo/s);

  insertBefore(
    'server/api/registry.ts',
    '} satisfies',
    "  echo: experiment(parseEchoInput, [], runEcho, 'reads'),\n",
  );
  insertBefore(
    'server/api/registry.ts',
    'import type { CapabilityName, Grant }',
    "import { parseEchoInput, runEcho } from '../experiments/echo.ts';\n",
  );
  const checked = typeCheck();
  assert.equal(checked.status, 0, checked.stdout);

  // Without the runner's own variable, which would make the child skip its files (it is run from a test).
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const tableTest = () =>
    spawnSync(process.execPath, ['--test', join(copy, 'tests/unit/experiment-table.test.ts')], {
      encoding: 'utf8',
      env,
    });
  const stale = tableTest();
  assert.notEqual(stale.status, 0, 'the table’s test fails while docs/api.md lacks the row');
  assert.match(stale.stdout, /docs\/api\.md is stale: node scripts\/api-doc\.ts/);

  const regenerated = spawnSync(process.execPath, [join(copy, 'scripts/api-doc.ts')], { encoding: 'utf8' });
  assert.equal(regenerated.status, 0, regenerated.stderr);
  assert.match(
    readFileSync(join(copy, 'docs/api.md'), 'utf8'),
    /^\| `echo` \| `text`: a string \| `text`, as sent \|$/m,
  );
  const table = tableTest();
  assert.equal(table.status, 0, table.stdout);
});
