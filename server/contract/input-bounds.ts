// The bounds of what a reader sends, field by field, as JSON Schema keywords read from limits.ts: what
// the OpenAPI document (scripts/openapi.ts) adds to each experiment's body schema, which the types alone
// cannot say. tests/unit/openapi.test.ts holds each one to its parser (server/experiments/): a value at
// the bound is not refused for its size, one past it is.
//
// A string's bound is in bytes of UTF-8 (what the parsers count); JSON Schema's `maxLength` counts
// characters, so it is the same number, which no string over the byte bound can pass unless it holds
// characters of more than one byte; `x-maxBytes` states the byte bound itself.

import type { ExperimentName } from './experiment-table.ts';
import { CONSOLE_LIMITS, LAYOUT_KEYS, LIMITS } from './limits.ts';

export interface Bound {
  /** Bytes of UTF-8 a string may hold. */
  maxBytes?: number;
  /** Items an array may hold, at least and at most; `itemMaxBytes` bounds each (a string). */
  minItems?: number;
  maxItems?: number;
  itemMaxBytes?: number;
}

/** Each experiment's bounded fields (a top-level field of its body), with their bounds; none when left out. */
export const INPUT_BOUNDS: { [N in ExperimentName]?: Record<string, Bound> } = {
  keys: { queue: { maxBytes: LIMITS.queueBytes }, id: { maxBytes: LIMITS.idBytes } },
  slot: {
    key: { maxBytes: LIMITS.keyBytes },
    queue: { maxBytes: LIMITS.queueBytes },
    other: { maxBytes: LIMITS.queueBytes },
  },
  layout: {
    queue: { maxBytes: LIMITS.queueBytes },
    id: { maxBytes: LIMITS.idBytes },
    keys: { minItems: 1, maxItems: LAYOUT_KEYS, itemMaxBytes: LIMITS.keyBytes },
  },
  route: { queue: { maxBytes: LIMITS.queueBytes } },
  reshard: { queue: { maxBytes: LIMITS.queueBytes } },
  reserve: {},
  'two-executors': { steps: { maxItems: LIMITS.steps }, queue: { maxBytes: LIMITS.queueBytes } },
  console: {
    lines: { minItems: 1, maxItems: CONSOLE_LIMITS.lines, itemMaxBytes: CONSOLE_LIMITS.lineBytes },
  },
};
