// The failure log: one JSON line per failure on standard error, carrying the id and experiment of the
// request it happened in (the same id as that request's access-log line), a stack when there is one, and
// at most ten lines of a kind a minute — the eleventh is counted, and summed up when the minute is over.

import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { logLimited } from '../../server/log.ts';
import { newRequestId, withRequest } from '../../server/observe/request-context.ts';

/** What `work` writes to standard error, line by line, as JSON. */
function stderrOf(work: () => void): Array<Record<string, unknown>> {
  const lines: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => (lines.push(String(chunk)), true)) as typeof write;
  try {
    work();
  } finally {
    process.stderr.write = write;
  }
  return lines
    .join('')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe('the failure log', () => {
  it('writes one JSON line with the request’s id, experiment and the error’s stack', () => {
    const id = newRequestId();
    assert.match(id, /^[0-9a-f]{12}$/);
    const [line, ...more] = stderrOf(() =>
      withRequest({ id, experiment: 'keys' }, () =>
        logLimited('keys failed', 'it broke', new Error('it broke')),
      ),
    );
    assert.deepEqual(more, []);
    assert.equal(line!.level, 'error');
    assert.equal(line!.kind, 'keys failed');
    assert.equal(line!.message, 'it broke');
    assert.equal(line!.id, id);
    assert.equal(line!.experiment, 'keys');
    assert.match(String(line!.stack), /^Error: it broke\n\s+at /);
    assert.match(String(line!.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
  });

  it('outside a request, the line has no id; a detail that is not an error is kept as words', () => {
    const [line] = stderrOf(() => logLimited('outside', 'no request', { toString: () => 'a detail' }));
    assert.equal(line!.id, undefined);
    assert.equal(line!.detail, 'a detail');
  });

  it('ten lines of a kind a minute are written, the eleventh is not; the next minute sums them up', () => {
    mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    try {
      const kind = `flood ${newRequestId()}`;
      const first = stderrOf(() => {
        for (let i = 0; i < 10; i += 1) logLimited(kind, `line ${i}`);
      });
      assert.equal(first.length, 10, 'at the limit: all ten written');
      assert.deepEqual(
        stderrOf(() => logLimited(kind, 'one past')),
        [],
        'one past: not written',
      );
      mock.timers.tick(60_000);
      const next = stderrOf(() => logLimited(kind, 'a new minute'));
      assert.deepEqual(
        next.map((line) => line.message),
        ['1 more like this in the last minute, not logged', 'a new minute'],
      );
    } finally {
      mock.timers.reset();
    }
  });
});
