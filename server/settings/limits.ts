// The caps on what an anonymous reader may send. Small on purpose: every experiment teaches with a
// handful of keys, and nothing a reader sends should cost the sandbox more than that.

export const LIMITS = {
  /** Bytes of a request body. */
  bodyBytes: 4096,
  /** Bytes of a queue name. */
  queueBytes: 64,
  /** Bytes of any one key a reader types or edits. */
  keyBytes: 256,
  /** Bytes of a job payload. */
  payloadBytes: 256,
  /** Steps in a two-executors sequence. */
  steps: 16,
} as const;
