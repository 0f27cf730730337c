// An error that says what a reader or a server said — a reply, a fence's refusal, input refused by the
// grammar or a field's check — not a place in our code: it captures no stack, which cost ~15 µs each (a
// route run meets several, and a flood of bad input is answered one refusal per request).

export class StacklessError extends Error {
  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}
