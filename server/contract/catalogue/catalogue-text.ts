// A failure's text and status read from its catalogue row, so what a failure says and what the catalogue
// publishes are one string: a row's `<name>` is filled with the value of that name, and a value missing,
// left over or a row not found is an error of ours at the first use, never a drifted message.

import { ERROR_CODES, type Code, type ErrorCode, type StatusCode, type VariantOf } from './error-codes.ts';

/** The one row of `code` (and `variant`, where the code has several). */
export function catalogueRow<C extends Code>(code: C, variant?: VariantOf<C>): ErrorCode {
  const rows = ERROR_CODES.filter(
    (row) => row.code === code && (variant === undefined || row.variant === variant),
  );
  if (rows.length !== 1) {
    const asked = variant === undefined ? code : `${code} (${variant})`;
    throw new Error(`the error catalogue has ${rows.length} rows for ${asked}; exactly one is needed`);
  }
  return rows[0]!;
}

/** A value as it sits between the quotes of a row's text (`"<name>"`): JSON's escapes, without its quotes. */
export function quoted(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/** The text of a row with each `<name>` filled in from `values`. */
export function catalogueText<C extends Code>(
  code: C,
  values: Record<string, string | number> = {},
  variant?: VariantOf<C>,
): string {
  const used = new Set<string>();
  const text = catalogueRow(code, variant).text.replace(/<([^<>]+)>/g, (_, name: string) => {
    if (!Object.hasOwn(values, name)) throw new Error(`${code}: no value for <${name}>`);
    used.add(name);
    return String(values[name]);
  });
  const unused = Object.keys(values).filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`${code}: its text has no <${unused.join('>, <')}>`);
  return text;
}

/** The HTTP status the API answers `code` with: one per code, whatever the row. */
export function statusOf(code: StatusCode): number {
  const statuses = new Set(ERROR_CODES.filter((r) => r.code === code).map((r) => r.status));
  if (statuses.size !== 1) throw new Error(`${code} has ${statuses.size} statuses in the error catalogue`);
  return [...statuses][0]!;
}
