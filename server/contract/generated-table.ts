// A page's generated table: the lines between its two marks are rebuilt from the code that holds the
// facts (docs/wire.md's error table, docs/api.md's experiments), never edited by hand; a test compares
// the committed page with what its script writes.

/** The line after every generated table. */
export const GENERATED_END = '<!-- end of the generated table -->';

/** `page` with what lies between `start` and the end mark replaced by `table`. */
export function withTable(page: string, name: string, start: string, table: string): string {
  const from = page.indexOf(start);
  const end = page.indexOf(GENERATED_END, from);
  if (from < 0 || end < from)
    throw new Error(`${name} has lost the lines around its generated table: ${start}`);
  return `${page.slice(0, from)}${start}\n\n${table}\n\n${page.slice(end)}`;
}
