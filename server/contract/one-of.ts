// A value a page read from a form, narrowed to one of the contract's lists (a verb, a step, a size), so
// the body it sends is typed as the API takes it; the server checks the same list again.

/** Whether `value` is one of `allowed`. */
export function isOneOf<T>(allowed: readonly T[], value: unknown): value is T {
  return (allowed as readonly unknown[]).includes(value);
}
