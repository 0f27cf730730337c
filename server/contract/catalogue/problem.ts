// Every refusal of the API as problem details (RFC 9457, `application/problem+json`), built from the
// error catalogue's row: `status` from the row, `title` from the code's title, `detail` the row's text
// filled in, `code` the catalogue's code, and `type` a link to the code's own description in the API's
// OpenAPI document (`/api/openapi.json`, components.responses.<code>), relative to the API's origin.
// Shared by the server, which writes it, and the browser, which reads it (src/components/explorer/).

import { problemTitle } from './problem-titles.ts';
import type { StatusCode } from './error-codes.ts';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** Where the OpenAPI document is served. */
export const OPENAPI_PATH = '/api/openapi.json';

/** The problem type of `code`: its response in the OpenAPI document. */
export function problemType(code: string): string {
  return `${OPENAPI_PATH}#/components/responses/${code}`;
}

/** The body of every refusal the API answers. */
export interface Problem {
  /** The code's description: `/api/openapi.json#/components/responses/<code>`. */
  type: string;
  /** One short summary of the code, the same for every occurrence. */
  title: string;
  /** The HTTP status, as the catalogue's row gives it. */
  status: number;
  /** What was wrong and what is allowed: the row's text, filled in. */
  detail: string;
  /**
   * The catalogue's code (`BAD_INPUT`, `BUSY`…): what a program tests. A `StatusCode`, typed as a string
   * here so the OpenAPI generator reads this interface (it lists the codes itself).
   */
  code: string;
  /** For `BAD_INPUT`: the field that was refused (`queue`, `lines[1]`…). */
  field?: string;
  /**
   * The body before problem details, kept for one round so that clients written against it still
   * work: `code` and `message` (= `detail`), and `field` where there is one. Read the members above.
   * @deprecated
   */
  error: { code: string; message: string; field?: string };
}

export function problemOf(code: StatusCode, status: number, detail: string, field?: string): Problem {
  const where = field === undefined ? {} : { field };
  return {
    type: problemType(code),
    title: problemTitle(code, status),
    status,
    detail,
    code,
    ...where,
    error: { code, message: detail, ...where },
  };
}

/** What a reader takes from a refusal: its code and its words, whichever shape the body has. */
export function refusalOf(body: unknown, status: number): { code: string; detail: string; field?: string } {
  const problem = (body ?? {}) as Partial<Problem>;
  if (typeof problem.code === 'string' && typeof problem.detail === 'string') {
    return { code: problem.code, detail: problem.detail, ...(problem.field ? { field: problem.field } : {}) };
  }
  return { code: `HTTP ${status}`, detail: 'no message' };
}
