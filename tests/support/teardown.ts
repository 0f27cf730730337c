// A test file's teardown, bounded: a client that never confirms its QUIT or a server that never
// confirms its stop must not hold the whole run. Past the bound the teardown is left behind, and
// the file's process ends once its tests are done (exit-when-done.ts).

const TEARDOWN_MS = 15_000;

export async function boundedTeardown(work: () => Promise<unknown>, ms = TEARDOWN_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    if ((await Promise.race([work(), late])) === 'late')
      console.error(`# teardown still running after ${ms} ms; left to the process's exit`);
  } finally {
    clearTimeout(timer);
  }
}
