// A keyspace read back as data, as a result carries it: every key with its type and contents, and what
// one step changed in it. The server reads them (server/inspect/); the page shows them.

export type DumpedValue =
  | { type: 'hash'; value: Record<string, string> }
  | { type: 'zset'; value: Array<[string, number]> }
  | { type: 'list'; value: string[] }
  | { type: 'set'; value: string[] }
  | { type: 'string'; value: string | null };

export type KeyspaceDump = Record<string, DumpedValue>;

/** One key added, removed or changed by a step, with its value before and after. */
export interface KeyChange {
  key: string;
  change: 'added' | 'removed' | 'changed';
  before?: DumpedValue;
  after?: DumpedValue;
}
