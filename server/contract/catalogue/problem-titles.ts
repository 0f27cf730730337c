// The title of each refusal the API answers, for its problem details (RFC 9457): one short summary per
// code that never changes from one occurrence to the next (the row's text, filled in, is the `detail`).
// A code added to the catalogue with a status and no title here yet is titled by its status's phrase
// (RFC 9457 allows it), so a new catalogue row is a complete refusal on its own.

import type { StatusCode } from './error-codes.ts';

const OWN_TITLES: Partial<Record<StatusCode, string>> = {
  NOT_FOUND: 'Nothing here',
  UNKNOWN_EXPERIMENT: 'No such experiment',
  METHOD: 'Method not served here',
  BAD_PATH: 'Unreadable request path',
  RATE_LIMITED: 'Too many runs',
  CONTENT_TYPE: 'Body not sent as JSON',
  TOO_LARGE: 'Body too large',
  BAD_JSON: 'Body not JSON',
  BAD_INPUT: 'Input refused',
  BUSY: 'Sandbox busy with other runs',
  RESHARD_QUEUED: 'A reshard of yours is already in line',
  RESHARD_FAILED: 'Slot move did not finish',
  RESHARD_IMPOSSIBLE: 'Slot cannot move',
  SANDBOX_DEGRADED: 'Sandbox cluster degraded',
  SANDBOX_DOWN: 'Sandbox not answering',
  SANDBOX_LIMIT: 'Sandbox has no keyspace for this run',
  TIMEOUT: 'Run took too long',
  VALKEY9_BUILDING: 'Valkey 9.1 being built',
  VALKEY9_STARTING: 'Valkey 9.1 cluster starting',
  VALKEY9_UNAVAILABLE: 'Valkey 9.1 not available',
  SANDBOX_BUSY: 'Sandbox Valkey busy',
  SANDBOX_FULL: 'Sandbox Valkey out of memory',
  OVERLOADED: 'Site at its connection limit',
  INTERNAL: 'Server failure',
};

/** The phrase of each status the catalogue uses (RFC 9110), for a code without a title of its own. */
const STATUS_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The title of `code`'s problem details: its own, else its status's phrase. */
export function problemTitle(code: StatusCode, status: number): string {
  return OWN_TITLES[code] ?? STATUS_PHRASES[status] ?? `HTTP ${status}`;
}
