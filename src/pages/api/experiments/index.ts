// GET /api/experiments — the catalogue: every experiment with its input, an example and the limits.
import type { APIRoute } from 'astro';
import { catalogue, methodNotAllowed } from '../../../../server/experiments/http.ts';

export const prerender = false;

export const ALL: APIRoute = ({ request }) =>
  request.method === 'GET' || request.method === 'HEAD'
    ? catalogue()
    : methodNotAllowed(request.method, 'GET, HEAD', 'POST to /api/experiments/<name>; GET here lists them');
