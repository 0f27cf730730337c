// The site's routes as the HTTP edge sees them, in one table: the front reads it to decide what the
// rate limiter counts and what goes past Astro to the API, and the API reads it to route and to say,
// in a 405, what a path takes. A path here is canonical (server/front/canonical-path.ts).

import { OPENAPI_PATH } from '../contract/catalogue/problem.ts';

/** The API's paths: /api and everything under it. */
export const API_PREFIX = '/api';

export interface ApiRoute {
  /** The methods the path takes (the `allow` header of its 405). */
  methods: readonly string[];
  /** What the path takes, in words, for its 405. */
  takes: string;
  /** Whether asking it with a method it takes starts work on the sandbox (so the limiter counts it). */
  startsWork: boolean;
}

export const API_ROUTES = {
  catalogue: {
    methods: ['GET', 'HEAD'],
    takes: 'POST to /api/experiments/<name>; GET here lists them',
    startsWork: false,
  },
  experiment: { methods: ['POST'], takes: 'experiments run with POST and a JSON body', startsWork: true },
  sandbox: {
    methods: ['GET', 'HEAD'],
    takes: 'GET here answers whether the sandbox is up',
    startsWork: true,
  },
  openapi: {
    methods: ['GET', 'HEAD'],
    takes: 'GET here answers the OpenAPI document of the API',
    startsWork: false,
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

/** Routes that start work on the sandbox: every run, island and status check; only the catalogue is free. */
export function startsWork(method: string, path: string): boolean {
  if (isIslandPath(path)) return true;
  if (!isApiPath(path)) return false;
  const route = apiRoute(path);
  if (!route) return true; // the API's 404 is counted like any other call of it
  return !routeTakes(route.name, method) || API_ROUTES[route.name].startsWork;
}
