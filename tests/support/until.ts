// A bounded wait: the tests poll for a state a server reaches in its own time (a watchdog, a repair, a
// migration) and fail saying which state never came, never hanging the run.

/** What a probe answers while the state has not come yet. */
type NotYet = false | null | undefined;

/**
 * Polls `probe` every `everyMs` until it answers something other than false, null or undefined, and
 * returns that answer; throws `<what>: not within <ms> ms` once `ms` have passed.
 */
export async function until<T>(
  what: string,
  probe: () => T | NotYet | Promise<T | NotYet>,
  ms = 15_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const answer = await probe();
    if (answer !== false && answer !== null && answer !== undefined) return answer;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
