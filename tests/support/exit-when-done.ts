// Each test file's process ends once its tests and their teardowns are done, even if a handle lingers
// (a client that never confirmed its QUIT, a server that never confirmed its stop: teardown.ts bounds
// those). Node's --test-force-exit did this, but it exits before the file's report has reached the
// runner, which then loses the file's last verdicts — a failure's name and message among them — and only
// says the file failed (nodejs/node#64833: four files of 401 tests, one failing in each, counted 971 to
// 1,143 tests in six runs, the failing test named in one). Loaded into every file's process by
// `node --test --import` (scripts/test.sh).

import { after } from 'node:test';

/** Longer than any file's teardown (teardown.ts's bound), so none is cut short; a test of this sets it. */
const EXIT_AFTER_MS = Number(process.env.TEST_EXIT_AFTER_MS ?? 30_000);

// Only in a test file's own process (its runner sets NODE_TEST_CONTEXT), not in the runner itself.
if (process.env.NODE_TEST_CONTEXT) {
  after(() => {
    setTimeout(() => {
      console.error(`# ${process.argv[1]}: a handle outlived the tests by ${EXIT_AFTER_MS} ms; exiting`);
      process.exit();
    }, EXIT_AFTER_MS).unref();
  });
}
