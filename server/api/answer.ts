// A JSON answer of the HTTP edge before any server writes it (status, body, headers), and the one way
// to build a refusal: problem details (RFC 9457, `application/problem+json`, the contract's
// catalogue/problem.ts) with the status and text read from the error catalogue's row. The front's own
// refusals and the API's are both built here and both written by server/front/write-answer.ts.

import { catalogueText, statusOf } from '../contract/catalogue/catalogue-text.ts';
import type { StatusCode, VariantOf } from '../contract/catalogue/error-codes.ts';
import { PROBLEM_MEDIA_TYPE, problemOf } from '../contract/catalogue/problem.ts';
import { API_ROUTES, type ApiRouteName } from './routes.ts';

export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return { status, body, headers };
}

/** A refusal with a detail of our own making (a failure's, an input error's) under `code`. */
export function refusalSaying(
  code: StatusCode,
  detail: string,
  extra: { field?: string } = {},
  headers: Record<string, string> = {},
): Answer {
  const status = statusOf(code);
  return json(status, problemOf(code, status, detail, extra.field), {
    'content-type': `${PROBLEM_MEDIA_TYPE}; charset=utf-8`,
    ...headers,
  });
}

/** A refusal whose detail is the catalogue row's text, filled in with `values`. */
export function refusal<C extends StatusCode>(
  code: C,
  values: Record<string, string | number> = {},
  options: { variant?: VariantOf<C>; headers?: Record<string, string> } = {},
): Answer {
  return refusalSaying(code, catalogueText(code, values, options.variant), {}, options.headers);
}

/** The one 405: what the path takes, in `allow` and in words. */
export function methodNotAllowed(method: string, allow: readonly string[], takes: string): Answer {
  return refusal('METHOD', { method, 'what it takes': takes }, { headers: { allow: allow.join(', ') } });
}

/** The 405 of an API route, from the route table. */
export function routeMethodNotAllowed(method: string, route: ApiRouteName): Answer {
  const { methods, takes } = API_ROUTES[route];
  return methodNotAllowed(method, methods, takes);
}
