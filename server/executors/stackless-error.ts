// An error that carries the server's own words (a reply, a fence's refusal) for a run to show, not a
// place in our code: it captures no stack, which cost ~15 µs each, and a route run meets several.

export class StacklessError extends Error {
  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}
