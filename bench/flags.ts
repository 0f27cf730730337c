// A bench's command-line flags, each `--name <value>` with a default, read by node:util's parseArgs
// (bench/soak.ts, bench/reshard-fairness.ts), and a number one must be.

import { parseArgs } from 'node:util';

/** The flags named by `defaults`, each its value on the command line or its default. */
export function flagValues<Name extends string>(defaults: Record<Name, string>): Record<Name, string> {
  const options = Object.fromEntries(
    Object.entries<string>(defaults).map(([name, value]) => [
      name,
      { type: 'string' as const, default: value },
    ]),
  );
  return parseArgs({ options }).values as Record<Name, string>;
}

/** `flags[name]` as a positive number, or an error naming the flag and what it was. */
export function positiveFlag<Name extends string>(flags: Record<Name, string>, name: Name): number {
  const value = Number(flags[name]);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name} must be a positive number, not ${flags[name]}`);
  return value;
}
