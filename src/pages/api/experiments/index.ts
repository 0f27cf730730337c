// GET /api/experiments — the catalogue: every experiment with its input, an example and the limits.
import type { APIRoute } from 'astro';
import { catalogue, refusal } from '../../../../server/experiments/http.ts';

export const prerender = false;

export const ALL: APIRoute = ({ request }) =>
  request.method === 'GET'
    ? catalogue()
    : refusal(405, 'METHOD', 'POST to /api/experiments/<name>; GET here lists them');
