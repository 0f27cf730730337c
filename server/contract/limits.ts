// The caps on what an anonymous reader may send. Small on purpose: every experiment teaches with a
// handful of keys, and nothing a reader sends should cost the sandbox more than that. Free of Node APIs:
// the pages read the same numbers (a field's maxlength, a refusal's text). docs/api.md's Limits table
// states them; tests/unit/limits-doc.test.ts holds it to these.

/** What the catalogue (`GET /api/experiments`) serves as `limits`. */
export const LIMITS = {
  /** Bytes of a request body. */
  bodyBytes: 4096,
  /** Bytes of a queue name. */
  queueBytes: 64,
  /** Bytes of any one key a reader types or edits. */
  keyBytes: 256,
  /** Bytes of a job id a reader types: a branded id is 14; a longer one reaches the keyspace's refusal. */
  idBytes: 64,
  /** Bytes of a job payload. */
  payloadBytes: 256,
  /** Steps in a two-executors sequence. */
  steps: 16,
} as const;

/** Keys a reader may declare in the layout experiment. */
export const LAYOUT_KEYS = 8;

const CONSOLE_LINES = 16;
const CONSOLE_LINE_BYTES = 512;

/** The console's input: lines per run, and bytes per line. */
export const CONSOLE_LIMITS = {
  /** Lines in one console run. */
  lines: CONSOLE_LINES,
  /** Bytes of one line. */
  lineBytes: CONSOLE_LINE_BYTES,
  /** Bytes of a console request: every line full, each byte escaped in JSON as \u00XX, and 1 KB more. */
  bodyBytes: CONSOLE_LINES * CONSOLE_LINE_BYTES * 6 + 1024,
} as const;

/** Caps on one console line's arguments, beyond its bytes. */
export const CONSOLE_CAPS = {
  /** A SCAN's COUNT. */
  scanCount: 100,
  /** Field-value or score-member pairs of one HSET or ZADD. */
  pairs: 8,
  /** Keys of one EXISTS or DEL. */
  keys: 8,
  /** Bytes of the identity a SET on the version key may write. */
  identityBytes: 64,
  /** Arguments after an EMQ.* verb or SCRIPT <verb> (numkeys, keys and args together). */
  transitionArgs: 32,
  /** Distinct slots one console run on the cluster may hold the turn of: each makes other readers wait. */
  clusterSlots: 8,
} as const;
