// The site's routes as the HTTP edge sees them, in one table: the front reads it to decide which of the
// rate limiter's budgets a request draws on and what goes past Astro to the API, and the API reads it to route and to say,
// in a 405, what a path takes. A path here is canonical (server/front/canonical-path.ts).

import { OPENAPI_PATH } from '../contract/catalogue/problem.ts';

/** The API's paths: /api and everything under it. */
export const API_PREFIX = '/api';

export interface ApiRoute {
  /** The methods the path takes (the `allow` header of its 405). */
  methods: readonly string[];
  /** What the path takes, in words, for its 405. */
  takes: string;
  /** The rate limiter's budget a request of it draws on, when asked with a method it takes. */
  budget: Budget;
}

/**
 * The rate limiter's budgets, a bucket each per address (server/front/front.ts): `runs` for what starts
 * work on the sandbox; `reads` for an answer that costs CPU but starts nothing (the catalogue: 27 KB of
 * JSON, compressed, was free, and one address flooding it made every reader wait seconds); `status` for
 * GET /api/sandbox, apart, so a monitor polling it once a second is never throttled by a reader's runs,
 * nor a reader's runs by it.
 */
export type Budget = 'runs' | 'reads' | 'status';

export const API_ROUTES = {
  catalogue: {
    methods: ['GET', 'HEAD'],
    takes: 'POST to /api/experiments/<name>; GET here lists them',
    budget: 'reads',
  },
  experiment: { methods: ['POST'], takes: 'experiments run with POST and a JSON body', budget: 'runs' },
  sandbox: {
    methods: ['GET', 'HEAD'],
    takes: 'GET here answers whether the sandbox is up',
    budget: 'status',
  },
  openapi: {
    methods: ['GET', 'HEAD'],
    takes: 'GET here answers the OpenAPI document of the API',
    budget: 'reads',
  },
} as const satisfies Record<string, ApiRoute>;

export type ApiRouteName = keyof typeof API_ROUTES;

const EXPERIMENTS = `${API_PREFIX}/experiments`;

/** The API route of `path` (a trailing slash is the same path), with an experiment's name as sent. */
export function apiRoute(path: string): { name: ApiRouteName; experiment?: string } | null {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  if (trimmed === EXPERIMENTS) return { name: 'catalogue' };
  if (trimmed.startsWith(`${EXPERIMENTS}/`))
    return { name: 'experiment', experiment: trimmed.slice(EXPERIMENTS.length + 1) };
  if (trimmed === `${API_PREFIX}/sandbox`) return { name: 'sandbox' };
  if (trimmed === OPENAPI_PATH) return { name: 'openapi' };
  return null;
}

/** Whether the route takes `method`; any other is answered 405. */
export function routeTakes(name: ApiRouteName, method: string): boolean {
  return (API_ROUTES[name].methods as readonly string[]).includes(method);
}

/** Whether `path` is the API's (its own JSON 404 included): Astro never sees these. */
export function isApiPath(path: string): boolean {
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
}

/** Astro's server islands: each render runs experiments on the sandbox. */
export function isIslandPath(path: string): boolean {
  return path.startsWith('/_server-islands/');
}

/** Astro's image endpoint: this site has no image service. */
export function isImagePath(path: string): boolean {
  return path === '/_image' || path.startsWith('/_image/');
}

/**
 * The budget a request draws on, or null for none (the pages, served from what was built): every run,
 * island and API call that is not its route's (a 404, a 405) on `runs`, the catalogue on `reads`, the
 * status on `status`.
 */
export function budgetOf(method: string, path: string): Budget | null {
  if (isIslandPath(path)) return 'runs';
  if (!isApiPath(path)) return null;
  const route = apiRoute(path);
  if (!route || !routeTakes(route.name, method)) return 'runs';
  return API_ROUTES[route.name].budget;
}
